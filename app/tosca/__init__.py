"""The TOSCA library: safe reading, validation, types and type libraries, constraints, sizes and
the input field classes. No blueprint, no database: the features that use it pass in what it needs.
"""
