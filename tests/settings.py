"""The settings the tests run on, in their own process and in the servers and workers they start:
studio/settings.py exactly as the environment makes them, with a fast password hasher.

PBKDF2's million iterations (0.3 s a hash on the CI machine) are the point in production and only
a cost here: the tests make users by the hundred, and every refused token request hashes a password
too (Django hashes one for an unknown user, so that the time taken tells nothing). Tests of what a
deployed command or server does with passwords run on studio.settings itself."""
from studio.settings import *  # noqa: F401,F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
