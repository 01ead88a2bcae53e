from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from analyses.models import Analysis


@require_GET
def queue(request: HttpRequest) -> HttpResponse:
    analyses = Analysis.objects.order_by("-created_at")[:50]
    return render(request, "validation/queue.html", {"analyses": analyses})
