"""The API's pagination: DRF's page numbers, their parameters read by the one whole-number parser
(studio.money.parse_whole) and refused with a field error (400) when they are not a number from 1:
DRF's own reads `?page_size=null`, `?page_size=` and `0` as absent, and takes "٥" for 5. A page
size over the view's maximum is read as the maximum, as DRF does; a page past the last is a 404,
as DRF answers it."""
from __future__ import annotations

from rest_framework import pagination, serializers

from .fields import WholeNumberField


class Pages(pagination.PageNumberPagination):
    last_page_strings = ()  # `?page=last` is no number: the page count is in each answer

    def _number(self, request, name: str) -> int | None:
        if name not in request.query_params:
            return None
        try:
            return WholeNumberField(min_value=1).run_validation(request.query_params[name])
        except serializers.ValidationError as exc:
            raise serializers.ValidationError({name: exc.detail}) from None

    def get_page_size(self, request):
        size = self._number(request, self.page_size_query_param) if self.page_size_query_param else None
        if size is None:
            return self.page_size
        return min(size, self.max_page_size) if self.max_page_size else size

    def get_page_number(self, request, paginator):
        return self._number(request, self.page_query_param) or 1

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            parameter["schema"]["minimum"] = 1
            if parameter["name"] == self.page_size_query_param and self.max_page_size:
                parameter["description"] += f" At most {self.max_page_size}: a larger one is read as {self.max_page_size}."
        return parameters
