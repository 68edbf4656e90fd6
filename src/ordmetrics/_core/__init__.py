"""The private core: registry, validation, kernels, the array-API path and numerics.

Everything above it (metrics, evaluation, io, integrations, report) imports from here; nothing
here imports from above.
"""
