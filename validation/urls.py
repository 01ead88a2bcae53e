from django.urls import path

from validation import views

urlpatterns = [
    path("", views.queue, name="queue"),
]
