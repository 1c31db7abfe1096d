"""httpx for the tests, on one TLS context: `localhttp.get`, `post`, `Client` and `AsyncClient` are
httpx's own, with `verify` set to a context made once. httpx otherwise makes a context for each
client, loading the system's certificates each time (30-45 ms of CPU on the CI machine), and the
tests make hundreds of clients (a poll of a starting server is one). The servers the tests start
speak plain HTTP, so the context is never used; it keeps the certificate checks httpx would do."""
import ssl

import httpx

TLS = ssl.create_default_context()


def get(url, **kwargs) -> httpx.Response:
    return httpx.get(url, verify=TLS, **kwargs)


def post(url, **kwargs) -> httpx.Response:
    return httpx.post(url, verify=TLS, **kwargs)


def Client(**kwargs) -> httpx.Client:  # noqa: N802 (httpx's name)
    return httpx.Client(verify=TLS, **kwargs)


def AsyncClient(**kwargs) -> httpx.AsyncClient:  # noqa: N802 (httpx's name)
    return httpx.AsyncClient(verify=TLS, **kwargs)
