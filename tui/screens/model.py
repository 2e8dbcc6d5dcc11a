"""The model screen: effective settings per role, a connection test, the server's models.

The models the default role's server has (Ollama's /api/tags and /api/show, an
OpenAI-compatible server's /v1/models, the bundled model) are listed with size, parameters and
context length; `enter` on one makes it a role's model, saved in the user's settings file and
used at once (queued runs waiting for a model start when it is there). Ollama models can be
pulled with progress.
"""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, DataTable, Footer, Header, Input, Label, ProgressBar, Static

from tui.messages import ServicesReady
from tui.screens.base import NoemaScreen
from tui.widgets import mark


class ModelScreen(NoemaScreen):
    """What each role uses; test it; list the server's models, choose one; pull Ollama ones."""

    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back", id="model.back"),
        Binding("c", "test", "Check connection", id="model.test"),
        Binding("r", "list_models", "Refresh models", id="model.list"),
        Binding("p", "focus_pull", "Pull a model", id="model.pull"),
    ]

    def __init__(self, app=None) -> None:
        super().__init__()
        self._ollama = None

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        with VerticalScroll():
            yield Label("Effective model settings per role", classes="section")
            yield DataTable(id="roles", cursor_type="row")
            with Horizontal(classes="row"):
                yield Button("Test connection", id="test", variant="primary")
                yield Static(mark("off", "not tested"), id="test-result")
            yield Label("Models on the server  (enter: use for a role)", classes="section")
            yield Static("", id="installed-note")
            yield DataTable(id="installed", cursor_type="row")
            with Horizontal(classes="row", id="pull-row"):
                yield Input(placeholder="model to pull, e.g. qwen2.5:7b", id="pull-name")
                yield Button("Pull", id="pull")
            yield ProgressBar(id="pull-progress", total=100, show_eta=False)
            yield Static("", id="pull-status")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "Model"
        self.query_one("#installed", DataTable).add_columns(
            "Model", "Size", "Parameters", "Context", "Used for"
        )
        self.query_one("#pull-progress").display = False  # until a pull starts
        self.show_roles()
        self.action_list_models()

    def on_services_ready(self, _message: ServicesReady) -> None:
        """Opened before the services were: show the resolved roles and the models now."""
        self.show_roles()
        self.action_list_models()

    @property
    def llm(self):
        services = self.app.services
        return services.llm if services is not None else None

    def show_roles(self) -> None:
        from core.models import model_configs

        table = self.query_one("#roles", DataTable)
        table.clear(columns=True)  # the columns fit a newly chosen (longer) model name
        table.add_columns("Role", "Provider", "Model", "Base URL", "Temp", "Budget", "Max tokens")
        for role, cfg in model_configs(self.app.settings).items():
            table.add_row(
                role,
                cfg.provider,
                cfg.model,
                cfg.base_url or "-",
                f"{cfg.temperature:g}",
                str(cfg.context_budget),
                str(cfg.max_tokens),
                key=role,
            )

    def manager(self):
        """(backend, config) that can pull models for the default role, or None: Ollama's own
        client serves a litellm `ollama_chat/...` model's server too."""
        llm = self.llm
        if llm is None:
            return None
        backend, config = llm.backend("default"), llm.config("default")
        if getattr(backend, "serves_any_model", False) or config.provider == "ollama":
            return backend, config
        if config.is_ollama:
            from local_llm.backends.ollama_backend import OllamaBackend

            self._ollama = self._ollama or OllamaBackend()
            return self._ollama, config
        return None

    def _can_list(self) -> bool:
        from local_llm.catalog import server_kind

        llm = self.llm
        return llm is not None and server_kind(llm.config("default")) != "hosted"

    # -- connection test ------------------------------------------------------------------

    @on(Button.Pressed, "#test")
    def _test_pressed(self) -> None:
        self.action_test()

    def action_test(self) -> None:
        if self.llm is None:
            self.notify("services are still opening", severity="warning")
            return
        self.query_one("#test-result", Static).update(mark("busy", "testing…"))
        self.run_test_connection()

    @work(exclusive=True, group="model-test", exit_on_error=False)
    async def run_test_connection(self) -> None:
        from tui.probe import round_trip

        result = await round_trip(self.llm)
        state = "ok" if result.ok else "fail"
        self.query_one("#test-result", Static).update(mark(state, result.detail))

    # -- the server's models: list, choose, pull -------------------------------------------

    def action_list_models(self) -> None:
        note = self.query_one("#installed-note", Static)
        if self.llm is None:
            note.update("services are still opening")
            return
        for part in ("#pull-row", "#pull-progress", "#pull-status"):
            self.query_one(part).display = self.manager() is not None and part != "#pull-progress"
        if not self._can_list():
            note.update(
                "A hosted provider's models are not listed here: set models.model to one of "
                "its model names (see the README), then test the connection."
            )
            self.query_one("#installed").display = False
            return
        self.load_models()

    @work(exclusive=True, group="model-list", exit_on_error=False)
    async def load_models(self) -> None:
        from core.problems import explain
        from tui.widgets.model_picker import server_models, size_text

        config = self.llm.config("default")
        try:
            models = await server_models(self.llm)
        except Exception as exc:  # noqa: BLE001 - a down server is a status, not a crash
            note = f"cannot list models at {config.base_url}: {explain(exc).line}"
            self.query_one("#installed-note", Static).update(note)
            return
        table = self.query_one("#installed", DataTable)
        table.clear()
        for model in models:
            context = f"{model.context_length:,}" if model.context_length else "-"
            table.add_row(
                model.name,
                size_text(model.size_bytes),
                model.parameters or "-",
                context,
                ", ".join(self.roles_using(model.name)),
                key=model.name,
            )
        where = config.base_url or "the bundled model"
        self.query_one("#installed-note", Static).update(f"{len(models)} installed at {where}")
        if models and not isinstance(self.focused, Input):
            table.focus()  # what this screen is for: enter on a model

    def roles_using(self, name: str) -> list[str]:
        """The roles whose model is this listed one (embedding only when embeddings are on)."""
        from local_llm.catalog import same_model

        embeddings = self.app.settings.models.embeddings_enabled
        return [
            role
            for role, cfg in self.llm.roles.items()
            if same_model(name, cfg.model) and (role != "embedding" or embeddings)
        ]

    @on(DataTable.RowSelected, "#installed")
    def _model_chosen(self, event: DataTable.RowSelected) -> None:
        from tui.widgets.model_picker import RoleModal

        name = str(event.row_key.value)
        if self.llm.config("default").provider == "local":
            self.notify("the bundled model serves every role", title="Model")
            return
        current = {role: cfg.model for role, cfg in self.llm.roles.items()}
        self.app.push_screen(RoleModal(name, current), lambda role: self.use_model(name, role))

    def use_model(self, name: str, role: str | None) -> None:
        """Make `name` the model of `role`: saved in the user's settings, used at once."""
        from tui.choices import model_update, save_choice

        if role is None:
            return
        update = model_update(self.app.settings, self.llm.config("default"), role, name)
        if save_choice(self.app, update, f"{name} for {role}"):
            self.app.model_changed()
            self.query_one("#test-result", Static).update(mark("off", "not tested"))
            self.show_roles()
            self.load_models()

    def action_focus_pull(self) -> None:
        if self.manager() is not None:
            self.query_one("#pull-name", Input).focus()

    @on(Button.Pressed, "#pull")
    @on(Input.Submitted, "#pull-name")
    def _pull_requested(self) -> None:
        name = self.query_one("#pull-name", Input).value.strip()
        if not name:
            self.notify("type the name of a model to pull", severity="warning")
            return
        self.pull(name)

    @work(exclusive=True, group="model-pull", exit_on_error=False)
    async def pull(self, name: str) -> None:
        backend, config = self.manager()
        bar = self.query_one("#pull-progress", ProgressBar)
        status = self.query_one("#pull-status", Static)
        bar.update(total=100, progress=0)
        bar.display = True
        async for step in backend.pull(name, config):
            if step.fraction is not None:
                bar.update(progress=step.fraction * 100)
            status.update(f"{name}: {step.status}")
        bar.update(progress=100)
        self.notify(f"pulled {name}")
        self.load_models()
        self.app.check_model()  # runs waiting for this model start
