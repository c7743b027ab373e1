from django.apps import AppConfig


class CampaignsConfig(AppConfig):
    name = "campaigns"
    verbose_name = "Campaigns"

    def ready(self) -> None:
        from campaigns.kinds import KINDS
        from live.registry import register_kinds

        register_kinds(KINDS)
