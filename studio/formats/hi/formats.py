# Hindi: the Indian grouping, 25,000 and 1,00,000 (the separators come from Django's hi formats).
NUMBER_GROUPING = (3, 2, 0)
