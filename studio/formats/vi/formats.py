# Vietnamese: "25.000" (Django's vi formats give the separators; what is not set here comes from them).
NUMBER_GROUPING = 3
