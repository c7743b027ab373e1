from django.apps import AppConfig


class BughuntConfig(AppConfig):
    name = "bughunt"
    verbose_name = "Bug Hunt"
