"""The REST API under /api/v1/ (django-ninja) and the export of approved reports.

``routes`` holds the API and its endpoints, ``schema`` the OpenAPI schema of the request
bodies and the typed responses, ``exports`` the reads the API and the ``export_approved``
command share. Writes go through ``validation.services``; nothing outside this package (but
the URL root and the export command) imports it.
"""
