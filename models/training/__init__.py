"""Training code for acrag's learned judges: the retrieval evaluator and the complexity classifier.

Nothing here runs at import time; `acrag train evaluator` and `acrag train classifier` call in.
"""
