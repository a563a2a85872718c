"""The checks, one module per layer, bottom up; importing them registers them in this order."""
