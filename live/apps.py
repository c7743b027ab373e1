from django.apps import AppConfig


class LiveConfig(AppConfig):
    name = "live"
    verbose_name = "Live table"

    def ready(self) -> None:
        from live import streams
        from live.events import install_reconnecting_redis

        install_reconnecting_redis()
        streams.install()
