"""Where deployments are made: ``base`` (the interface, the portal's words for a deployment's
state, and the errors), and one package per backend (``paas``, ``im``) that alone knows its
service's words."""
