"""How much people may use: limits, what launches cost, usage, and the operator pages."""
