"""The admin web console: aiohttp routes over services/console_*, Jinja2 templates, static files."""

from bot.console.app import ROOT, ConsoleDeps, create_console, standalone_application

__all__ = ["ROOT", "ConsoleDeps", "create_console", "standalone_application"]
