import os

from django.core.wsgi import get_wsgi_application

from project.chunked import ChunkedBodies

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")
# Chunked request bodies are read (within the size limit) before Django sees the request.
application = ChunkedBodies(get_wsgi_application())
