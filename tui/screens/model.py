"""The model screen: effective settings per role, a connection test, Ollama's models."""

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
    """What each role uses; test it; list and pull Ollama models."""

    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back", id="model.back"),
        Binding("t", "test", "Test connection", id="model.test"),
        Binding("l", "list_models", "List models", id="model.list"),
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
            yield Label("Installed models", classes="section")
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
        table = self.query_one("#roles", DataTable)
        table.add_columns("Role", "Provider", "Model", "Base URL", "Temp", "Budget", "Max tokens")
        self.query_one("#installed", DataTable).add_columns("Model")
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
        table.clear()
        for role, cfg in model_configs(self.app.settings).items():
            table.add_row(
                role, cfg.provider, cfg.model, cfg.base_url or "-", f"{cfg.temperature:g}",
                str(cfg.context_budget), str(cfg.max_tokens), key=role,
            )  # fmt: skip

    def manager(self):
        """(backend, config) that can list and pull models for the default role, or None.

        An Ollama backend does it itself; a litellm `ollama_chat/...` model is served by an
        Ollama server too, so the official client is used for it.
        """
        llm = self.llm
        if llm is None:
            return None
        backend, config = llm.backend("default"), llm.config("default")
        if hasattr(backend, "list_models"):
            return backend, config
        if config.model.startswith(("ollama_chat/", "ollama/")):
            from local_llm.backends.ollama_backend import OllamaBackend

            self._ollama = self._ollama or OllamaBackend()
            return self._ollama, config
        return None

    def _can_list(self) -> bool:
        return self.manager() is not None

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

    # -- Ollama: list and pull ------------------------------------------------------------

    def action_list_models(self) -> None:
        note = self.query_one("#installed-note", Static)
        if self.llm is None:
            note.update("services are still opening")
            return
        if not self._can_list():
            note.update(
                'Listing and pulling models needs an Ollama model (provider = "ollama" or an ollama_chat/... name).'
            )
            for part in ("#installed", "#pull-row", "#pull-progress", "#pull-status"):
                self.query_one(part).display = False
            return
        self.load_models()

    @work(exclusive=True, group="model-list", exit_on_error=False)
    async def load_models(self) -> None:
        backend, config = self.manager()
        try:
            models = await backend.list_models(config)
        except Exception as exc:  # noqa: BLE001 - a down server is a status, not a crash
            from core.problems import explain

            note = f"cannot list models at {config.base_url}: {explain(exc).line}"
            self.query_one("#installed-note", Static).update(note)
            return
        table = self.query_one("#installed", DataTable)
        table.clear()
        for name in models:
            table.add_row(name, key=name)
        self.query_one("#installed-note", Static).update(f"{len(models)} installed")

    def action_focus_pull(self) -> None:
        if self._can_list():
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
