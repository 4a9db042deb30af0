"""Returns and exchanges.

- `requests`: policy answers, request status, and filing a request exactly once;
- `typed_input`: typed answers to the return form's questions (the form's steps are
  handlers/flows/return_form.py).
"""
