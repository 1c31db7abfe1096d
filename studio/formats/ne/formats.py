# Nepali: the Indian grouping, 25,000 and 1,00,000 (Django has no Nepali formats).
DECIMAL_SEPARATOR = "."
THOUSAND_SEPARATOR = ","
NUMBER_GROUPING = (3, 2, 0)
