from django.apps import AppConfig


class ValidationConfig(AppConfig):
    name = "validation"
    verbose_name = "Validation"
