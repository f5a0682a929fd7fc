"""Call lines in scale-gp's style (issue 13): each is written exactly as a user of
``scale_gp.SGPClient`` (``scale-gp==0.1.0a62`` on PyPI) writes it, with the client in a
variable ``c``; the same line must run unchanged with our ``sgp.SgpClient``.

Method names, positional path parameters and keyword arguments come from scale-gp's
resource modules (``scale_gp/resources/**``): every line is a valid scale-gp call.

A line is Python source: an expression (its value is bound to ``r``) or one statement (a
``for`` over a stream, a ``with`` around a streaming response), which binds what its check
reads. Each line runs in a fresh namespace holding ``c`` and ``seen = []``. ``check`` is an
expression on that namespace that must be true: it reads only attributes that both SDKs
have when the names and shapes match (``items``, ``id``, ``status_code``, ``parse()``),
never an SDK's own classes.

Stdlib only: ``run_lines.py`` imports this module in the SDK venv, the test in apismith's.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Line:
    kind: str  # list, retrieve, create, update, delete, nested, stream, raw
    code: str  # what a scale-gp user writes; an expression's value is `r`
    check: str  # an expression that must be true after `code` ran


# Checks shared by many lines.
PAGE = "isinstance(r.items, list) and len(r.items) > 0"
PAGE_IDS = PAGE + " and all(isinstance(i.id, str) for i in r.items)"
HAS_ID = "isinstance(r.id, str)"
DELETED = "isinstance(r.success, bool)"
STREAMED = "len(seen) > 0"

LINES: list[Line] = [
    # --- lists --------------------------------------------------------------------------
    Line("list", "c.evaluations.list()", PAGE_IDS),
    Line("list", "c.evaluations.list(limit=10, page=1)", PAGE_IDS),
    Line(
        "list",
        "c.knowledge_bases.list()",
        PAGE + " and all(isinstance(i.knowledge_base_id, str) for i in r.items)",
    ),
    Line("list", "c.models.list()", PAGE_IDS),
    Line("list", "c.models.list(limit=5, model_type='COMPLETION')", PAGE_IDS),
    Line("list", "c.application_specs.list()", PAGE_IDS),
    Line("list", "c.evaluation_datasets.list()", PAGE_IDS),
    Line("list", "c.evaluation_configs.list()", PAGE_IDS),
    Line("list", "c.question_sets.list()", PAGE_IDS),
    Line("list", "c.questions.list()", PAGE_IDS),
    Line("list", "c.studio_projects.list()", PAGE_IDS),
    Line("list", "c.model_templates.list()", PAGE_IDS),
    Line("list", "c.fine_tuning_jobs.list()", PAGE_IDS),
    Line("list", "c.training_datasets.list()", PAGE_IDS),
    Line("list", "c.knowledge_base_data_sources.list()", PAGE_IDS),
    Line("list", "c.model_groups.list()", PAGE_IDS),
    Line("list", "c.application_deployments.list()", PAGE_IDS),
    Line("list", "c.themes.list()", PAGE_IDS),
    # --- retrieves ----------------------------------------------------------------------
    Line("retrieve", 'c.evaluations.retrieve("e1")', HAS_ID),
    Line("retrieve", 'c.knowledge_bases.retrieve("kb1")', "isinstance(r.knowledge_base_id, str)"),
    Line("retrieve", 'c.models.retrieve("m1")', HAS_ID),
    Line("retrieve", 'c.application_specs.retrieve("s1")', HAS_ID),
    Line("retrieve", 'c.evaluation_datasets.retrieve("d1")', HAS_ID),
    Line("retrieve", 'c.evaluation_configs.retrieve("ec1")', HAS_ID),
    Line("retrieve", 'c.question_sets.retrieve("qs1")', HAS_ID),
    Line("retrieve", 'c.questions.retrieve("q1")', HAS_ID),
    Line("retrieve", 'c.studio_projects.retrieve("p1")', HAS_ID),
    Line("retrieve", 'c.fine_tuning_jobs.retrieve("j1")', HAS_ID),
    Line("retrieve", 'c.model_templates.retrieve("t1")', HAS_ID),
    Line("retrieve", 'c.users.retrieve("u1")', HAS_ID),
    Line("retrieve", "c.users.info()", HAS_ID),
    # --- creates ------------------------------------------------------------------------
    Line(
        "create",
        'c.chat_completions.create(messages=[{"role": "user", "content": "hi"}], model="gpt-4")',
        "isinstance(r.chat_completion.message.content, str)",
    ),
    Line(
        "create",
        'c.completions.create(model="m", prompt="hi")',
        "isinstance(r.completion.text, str)",
    ),
    Line("create", 'c.accounts.create(account_name="acme")', "isinstance(r.account_id, str)"),
    Line(
        "create",
        'c.application_specs.create(account_id="a", description="d", name="spec")',
        HAS_ID,
    ),
    Line(
        "create",
        'c.studio_projects.create(account_id="a", description="d", name="p", studio_api_key="k")',
        HAS_ID,
    ),
    Line("create", 'c.model_groups.create(account_id="a", name="g")', HAS_ID),
    Line(
        "create",
        'c.question_sets.create(account_id="a", name="qs", question_ids=["q1"])',
        HAS_ID,
    ),
    Line(
        "create",
        'c.evaluation_configs.create(account_id="a", evaluation_type="human",'
        ' question_set_id="qs1")',
        HAS_ID,
    ),
    Line(
        "create",
        'c.evaluation_datasets.create(account_id="a", name="ds", schema_type="GENERATION")',
        HAS_ID,
    ),
    Line(
        "create",
        'c.questions.create(account_id="a", prompt="ok?", title="t", type="free_text")',
        HAS_ID,
    ),
    Line(
        "create",
        "c.knowledge_bases.create("
        'embedding_config={"type": "base", "embedding_model": "openai/text-embedding-3-small"},'
        ' knowledge_base_name="kb")',
        "isinstance(r.knowledge_base_id, str)",
    ),
    Line(
        "create",
        'c.knowledge_bases.query("kb1", query="what?", top_k=3)',
        "isinstance(r.chunks, list)",
    ),
    Line(
        "create",
        'c.chunks.rank(query="q", rank_strategy={"method": "rouge"},'
        ' relevant_chunks=[{"chunk_id": "ch1", "score": 0.5, "text": "t"}])',
        "isinstance(r.relevant_chunks, list)",
    ),
    # --- updates ------------------------------------------------------------------------
    Line("update", 'c.evaluations.update("e1", name="x")', HAS_ID),
    Line("update", 'c.application_specs.update("s1", name="x")', HAS_ID),
    Line("update", 'c.studio_projects.update("p1", name="x")', HAS_ID),
    Line("update", 'c.model_groups.update("g1", name="x")', HAS_ID),
    Line("update", 'c.models.update("m1", name="x")', HAS_ID),
    Line("update", 'c.evaluation_datasets.update("d1", name="x")', HAS_ID),
    Line("update", 'c.knowledge_base_data_sources.update("ds1", name="x")', HAS_ID),
    Line("update", 'c.chat_threads.update("t1", title="x")', HAS_ID),
    # --- deletes ------------------------------------------------------------------------
    Line("delete", 'c.evaluations.delete("e1")', DELETED),
    Line("delete", 'c.application_specs.delete("s1")', DELETED),
    Line("delete", 'c.models.delete("m1")', DELETED),
    Line("delete", 'c.studio_projects.delete("p1")', DELETED),
    Line("delete", 'c.evaluation_configs.delete("ec1")', DELETED),
    Line("delete", 'c.knowledge_bases.delete("kb1")', "isinstance(r.deleted, bool)"),
    Line("delete", 'c.evaluation_datasets.remove("d1")', DELETED),
    # --- nested resources ---------------------------------------------------------------
    Line("nested", 'c.knowledge_bases.uploads.list("kb1")', PAGE),
    Line(
        "nested",
        'c.knowledge_bases.uploads.retrieve("up1", knowledge_base_id="kb1")',
        "isinstance(r.upload_id, str)",
    ),
    Line(
        "nested",
        'c.knowledge_bases.uploads.create("kb1",'
        ' chunking_strategy_config={"strategy": "character"}, data_source_id="src1")',
        "isinstance(r.upload_id, str)",
    ),
    Line("nested", 'c.knowledge_bases.artifacts.list("kb1")', PAGE),
    Line(
        "nested",
        'c.knowledge_bases.artifacts.retrieve("art1", knowledge_base_id="kb1")',
        "isinstance(r.artifact_id, str)",
    ),
    Line("nested", 'c.knowledge_bases.upload_schedules.list("kb1")', PAGE_IDS),
    Line(
        "nested",
        'c.knowledge_bases.upload_schedules.delete("us1", knowledge_base_id="kb1")',
        DELETED,
    ),
    Line("nested", 'c.models.deployments.list("m1")', PAGE_IDS),
    Line("nested", "c.models.deployments.list_all()", PAGE_IDS),
    Line(
        "nested",
        'c.models.deployments.retrieve("dep1", model_instance_id="m1")',
        HAS_ID,
    ),
    Line("nested", 'c.models.deployments.create("m1", name="dep")', HAS_ID),
    Line(
        "nested",
        'c.models.deployments.delete("dep1", model_instance_id="m1")',
        DELETED,
    ),
    Line(
        "nested",
        'c.models.embeddings.create("dep1", texts=["a", "b"])',
        "isinstance(r.embeddings, list)",
    ),
    Line(
        "nested",
        'c.models.rerankings.create("dep1", chunks=["a", "b"], query="q")',
        "isinstance(r.chunk_scores, list)",
    ),
    Line(
        "nested",
        'c.applications.dashboards.retrieve("top_level_dashboard", application_spec_id="s1")',
        HAS_ID + " and isinstance(r.title, str)",
    ),
    Line(
        "nested",
        'c.applications.metrics.scalar.retrieve("total_requests", application_spec_id="s1")',
        "r.value is None or isinstance(r.value, (int, float))",
    ),
    Line("nested", 'c.evaluations.test_case_results.list("e1")', PAGE_IDS),
    Line(
        "nested",
        'c.evaluations.test_case_results.retrieve("tcr1", evaluation_id="e1")',
        HAS_ID,
    ),
    Line(
        "nested",
        'c.evaluations.evaluation_metrics.retrieve("e1")',
        "isinstance(r.evaluation_id, str)",
    ),
    Line("nested", 'c.evaluation_datasets.test_cases.list("d1")', PAGE_IDS),
    Line(
        "nested",
        'c.evaluation_datasets.test_cases.create("d1", test_case_data={"input": "hi"})',
        HAS_ID,
    ),
    Line(
        "nested",
        'c.evaluation_datasets.test_cases.delete("tc1", evaluation_dataset_id="d1")',
        DELETED,
    ),
    Line(
        "nested",
        'c.evaluation_datasets.evaluation_dataset_versions.list("d1")',
        PAGE_IDS,
    ),
    Line(
        "nested",
        'c.chat_threads.messages.retrieve("t1")',
        "isinstance(r.messages, list)",
    ),
    # --- streams ------------------------------------------------------------------------
    Line(
        "stream",
        'for chunk in c.completions.create(model="m", prompt="hi", stream=True):'
        " seen.append(chunk)",
        STREAMED,
    ),
    Line(
        "stream",
        "for chunk in c.chat_completions.create("
        'messages=[{"role": "user", "content": "hi"}], model="gpt-4", stream=True):'
        " seen.append(chunk)",
        STREAMED,
    ),
    Line(
        "stream",
        'for chunk in c.models.completions.create("dep1", prompt="hi", stream=True):'
        " seen.append(chunk)",
        STREAMED,
    ),
    Line(
        "stream",
        'for chunk in c.models.chat_completions.create("dep1",'
        ' chat_history=[{"role": "user", "content": "hi"}], prompt="hi", stream=True):'
        " seen.append(chunk)",
        STREAMED,
    ),
    # --- raw and streaming responses ----------------------------------------------------
    Line(
        "raw",
        "c.with_raw_response.evaluations.list()",
        "r.status_code == 200 and isinstance(r.parse().items, list)",
    ),
    Line(
        "raw",
        'c.evaluations.with_raw_response.retrieve("e1")',
        "r.status_code == 200 and isinstance(r.parse().id, str)",
    ),
    Line(
        "raw",
        'c.knowledge_bases.uploads.with_raw_response.list("kb1")',
        "r.status_code == 200 and isinstance(r.parse().items, list)",
    ),
    Line(
        "raw",
        'c.with_raw_response.completions.create(model="m", prompt="hi")',
        "r.headers.get('content-type', '').startswith('application/json')"
        " and isinstance(r.parse().completion.text, str)",
    ),
    Line(
        "raw",
        'with c.with_streaming_response.evaluations.retrieve("e1") as resp: r = resp.parse()',
        HAS_ID,
    ),
    Line(
        "raw",
        "with c.models.with_streaming_response.list() as resp: r = resp.parse()",
        PAGE_IDS,
    ),
]
