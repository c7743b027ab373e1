"""Static files storage: WhiteNoise's compressed, hashed files, with plain names before
``collectstatic`` has run."""

from __future__ import annotations

from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticStorage(CompressedManifestStaticFilesStorage):
    """WhiteNoise's storage (hashed names, gzip and Brotli copies, served with a year-long cache).

    Until ``collectstatic`` has written the manifest, ``{% static %}`` gives the plain file name
    instead of failing every page (WhiteNoise then serves the file from ``static/`` through the
    finders), so a fresh clone works with DEBUG off. After ``collectstatic`` a file missing from
    the manifest is still an error, as WhiteNoise intends.
    """

    def stored_name(self, name: str) -> str:
        if not self.hashed_files:
            return name
        return super().stored_name(name)
