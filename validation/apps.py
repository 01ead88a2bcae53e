from django.apps import AppConfig
from django.db.models.signals import post_migrate


class ValidationConfig(AppConfig):
    name = "validation"
    verbose_name = "Validation"

    def ready(self) -> None:
        from validation.roles import ensure_after_migrate

        # After every migrate and every test flush: groups and the Policy row always exist.
        post_migrate.connect(ensure_after_migrate, sender=self, dispatch_uid="redline-roles")
