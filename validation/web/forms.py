"""The "New analysis" form: a report, its fields and its evidence rows, read into a bundle.

The form only turns what a person typed (or uploaded) into the bundle the API takes; the
rules are the ingest's (``analyses.bundles`` through ``analysis_submit``), so the page and
the API refuse the same inputs with the same words. What the form checks itself is what
only a form has: an evidence row's JSON as typed, an uploaded file's encoding and size,
and rows half filled in. ``place_ingest_errors`` puts each ingest message beside the field
it names (``evidence[1].url: ...`` on the second evidence row's URL).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django import forms
from django.conf import settings
from django.core.files.uploadedfile import UploadedFile

from analyses.models import Pipeline

MAX_EVIDENCE_ROWS = 50
EXTRA_EVIDENCE_ROWS = 2
TEXT, JSON = "text", "json"
# A bundle key -> the form field that holds it (evidence has rows of its own; the pipeline is
# not part of a bundle).
FORM_FIELD = {
    "title": "title",
    "query": "query",
    "goals": "goals",
    "body": "body",
    "fields": "fields_json",
    "external_id": "external_id",
}


def _textarea(rows: int, **attrs: str) -> forms.Textarea:
    return forms.Textarea(attrs={"rows": str(rows), "spellcheck": "false", **attrs})


class PipelineChoice(forms.ModelChoiceField):  # type: ignore[type-arg]
    def label_from_instance(self, obj: Any) -> str:
        name = str(obj.name)
        return f"{name} ({obj.slug})" if name and name.lower() != obj.slug else name or obj.slug


class AnalysisForm(forms.Form):
    pipeline = PipelineChoice(
        queryset=Pipeline.objects.filter(active=True),
        empty_label=None,
        help_text="Whose report this is: its policy judges it, its webhooks hear of it.",
    )
    title = forms.CharField(max_length=300, required=False)
    query = forms.CharField(widget=_textarea(2), help_text="The question the report answers.")
    goals = forms.CharField(
        widget=_textarea(3), required=False, help_text="Optional: one goal a line."
    )
    body = forms.CharField(
        label="Report", widget=_textarea(16), strip=False, help_text="The report, in Markdown."
    )
    fields_json = forms.CharField(
        label="Fields",
        widget=_textarea(3, placeholder='{"decision": "WATCH", "conviction": "MODERATE"}'),
        required=False,
        help_text="Optional: the structured fields, as a JSON object.",
    )
    external_id = forms.CharField(
        label="External id",
        max_length=200,
        required=False,
        help_text="Optional: your own id; sending the same one again opens the analysis.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["pipeline"]
        assert isinstance(field, PipelineChoice)
        # The default pipeline is where a report goes unless someone picks another.
        field.initial = Pipeline.default().pk

    def clean_goals(self) -> list[str]:
        return [line.strip() for line in self.cleaned_data["goals"].splitlines() if line.strip()]

    def clean_fields_json(self) -> dict[str, Any]:
        text = self.cleaned_data["fields_json"].strip()
        if not text:
            return {}
        value = _json(text)
        if not isinstance(value, dict):
            raise forms.ValidationError('Give the fields as one JSON object: {"name": value}.')
        return value


class EvidenceForm(forms.Form):
    source_ref = forms.CharField(
        label="Source ref", max_length=200, required=False, help_text="How the report cites it."
    )
    kind = forms.CharField(max_length=40, required=False, help_text="tool_output, source ...")
    url = forms.CharField(label="URL", max_length=2000, required=False)
    format = forms.ChoiceField(
        choices=[(TEXT, "Text"), (JSON, "JSON")], initial=TEXT, widget=forms.RadioSelect
    )
    content = forms.CharField(widget=_textarea(5), required=False, strip=False)
    file = forms.FileField(
        label="or a file",
        required=False,
        help_text="UTF-8 text or JSON. Choose it again if the form comes back with an error.",
    )

    def has_input(self) -> bool:
        data = self.cleaned_data
        return any(data.get(name) for name in ("source_ref", "kind", "url", "file")) or bool(
            str(data.get("content") or "").strip()
        )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not self.has_input():
            return data
        upload: UploadedFile | None = data.get("file")
        text = str(data.get("content") or "")
        if upload is not None and text.strip():
            self.add_error("file", "Give the content or a file, not both.")
            return data
        if upload is not None:
            text = self._read(upload)
            if not data.get("source_ref") and upload.name:
                data["source_ref"] = upload.name[:200]
        if not data.get("source_ref"):
            self.add_error("source_ref", "Name the source (its source_ref).")
        if not text.strip():
            self.add_error("content" if upload is None else "file", "The evidence is empty.")
            return data
        if data.get("format") == JSON:
            try:
                data["parsed"] = _json(text)
            except forms.ValidationError as error:
                self.add_error("content" if upload is None else "file", error)
        else:
            data["parsed"] = text
        return data

    def _read(self, upload: UploadedFile) -> str:
        limit = settings.REDLINE_MAX_EVIDENCE_BYTES
        if upload.size is None or upload.size > limit:
            self.add_error("file", f"The file is over the {limit}-byte evidence limit.")
            return ""
        try:
            return bytes(upload.read(limit + 1)).decode("utf-8-sig")
        except UnicodeDecodeError as error:
            self.add_error("file", f"The file is not UTF-8 text (byte offset {error.start}).")
            return ""

    def item(self) -> dict[str, Any]:
        data = self.cleaned_data
        item: dict[str, Any] = {
            "source_ref": data["source_ref"],
            "kind": data.get("kind") or (JSON if data.get("format") == JSON else TEXT),
            "content": data["parsed"],
        }
        if data.get("url"):
            item["url"] = data["url"]
        return item


EvidenceFormSet = forms.formset_factory(
    EvidenceForm,
    extra=EXTRA_EVIDENCE_ROWS,
    max_num=MAX_EVIDENCE_ROWS,
    absolute_max=MAX_EVIDENCE_ROWS,
    validate_max=True,
)


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except RecursionError:
        raise forms.ValidationError("Not valid JSON: nested too deeply.") from None
    except ValueError as error:
        detail = (
            f"{error.msg} (line {error.lineno}, column {error.colno})"
            if isinstance(error, json.JSONDecodeError)
            else str(error)
        )
        raise forms.ValidationError(f"Not valid JSON: {detail}.") from None


@dataclass
class NewAnalysis:
    """The form and its evidence rows; a valid pair is a bundle."""

    form: AnalysisForm
    evidence: Any  # an EvidenceFormSet (formset_factory builds the class at run time)

    def is_valid(self) -> bool:
        # Both, always: every error shows at once.
        return bool(self.form.is_valid() & self.evidence.is_valid())

    def rows(self) -> list[EvidenceForm]:
        """The evidence rows someone filled in (blank rows are skipped)."""
        return [row for row in self.evidence.forms if row.is_valid() and row.has_input()]

    def bundle(self) -> dict[str, Any]:
        data = self.form.cleaned_data
        bundle: dict[str, Any] = {
            "title": data["title"],
            "query": data["query"],
            "goals": data["goals"],
            "body": data["body"],
            "fields": data["fields_json"],
            "evidence": [row.item() for row in self.rows()],
        }
        if data["external_id"]:
            bundle["external_id"] = data["external_id"]
        return bundle

    def place_ingest_errors(self, messages: Sequence[str]) -> None:
        """Each ingest message on the field it names (``evidence[1].url: ...``, or
        ``evidence[1].source_ref 'x' is used more than once``), else above the form."""
        rows = self.rows()
        for message in messages:
            path = message.split(" ", 1)[0].removesuffix(":")
            head, _, name = path.partition(".")
            text = message.removeprefix(f"{path}: ")
            if head.startswith("evidence[") and head.endswith("]"):
                index = head[len("evidence[") : -1]
                if index.isdigit() and int(index) < len(rows):
                    row = rows[int(index)]
                    row.add_error(name if name in row.fields else None, text)
                    continue
            field = FORM_FIELD.get(head.split("[", 1)[0], "")
            if field:
                self.form.add_error(field, text)
            else:
                self.form.add_error(None, message)
