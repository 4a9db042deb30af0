"""Conversations that more than one router starts: a hand-off to a person and the return form.

Routers (handlers/<feature>.py) never import each other; when one must start another's
conversation it calls the flow here.
"""
