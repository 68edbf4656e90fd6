"""Fronts for other libraries: scikit-learn, PyTorch, Keras and Lightning, Dask."""
