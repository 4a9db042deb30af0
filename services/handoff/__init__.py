"""Hand-offs to a person.

- `sessions`: who is talking to a person, and which support-chat message is whose;
- `brief`: what staff see first when a customer asks for a person.
"""
