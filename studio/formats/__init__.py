"""Number formats Django's own locale files leave out (FORMAT_MODULE_PATH): the digit grouping of
Vietnamese (25.000) and of Hindi and Nepali (the Indian lakh grouping, 1,00,000), as the pages'
modules write numbers with the browser's Intl.NumberFormat for the same languages."""
