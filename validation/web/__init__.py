"""The web side of validation: the queue, the review screen, the dashboard and the Policy page.

``views`` and ``urls`` are thin: ``presenters`` and ``review_state`` say what a page shows
(read through ``validation.selectors``), ``fix_cards`` writes a fix card in Python,
``rendering`` and ``diffs`` turn reports into sanitized HTML, ``display`` writes values for
people. Writes go through ``validation.services``; nothing outside this package (but the URL
root and the template tags) imports it.
"""
