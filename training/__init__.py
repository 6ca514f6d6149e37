"""Training code for acrag's learned judges: retrieval evaluator, support judge, classifier.

Nothing here runs at import time; `acrag train evaluator|support|classifier` call in.
"""
