"""The one settings model: defaults < repository settings.toml < user file < NOEMA_ env vars."""

from __future__ import annotations

from pathlib import Path

from platformdirs import user_data_dir
from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from core.settings.flows import FlowsSettings
from core.settings.sections import (
    DataSettings,
    ModelSettings,
    RoleModel,
    StoreSettings,
    TuiSettings,
    VaultSettings,
)


class Settings(BaseSettings):
    """Everything noema can be configured with."""

    model_config = SettingsConfigDict(
        env_prefix="NOEMA_",
        env_nested_delimiter="__",
        use_attribute_docstrings=True,
        extra="forbid",
    )

    vault: VaultSettings = Field(default_factory=VaultSettings)
    """The Obsidian vault."""
    data: DataSettings = Field(default_factory=DataSettings)
    """noema's own data directory."""
    store: StoreSettings = Field(default_factory=StoreSettings)
    """Where shared state is kept: the local SQLite file, or a PostgreSQL database."""
    models: ModelSettings = Field(default_factory=ModelSettings)
    """Model access."""
    flows: FlowsSettings = Field(default_factory=FlowsSettings)
    """Workflow parameters."""
    tui: TuiSettings = Field(default_factory=TuiSettings)
    """Terminal UI."""

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # Files arrive as init kwargs (already merged); environment variables win over them.
        return (env_settings, init_settings)

    @model_validator(mode="after")
    def _data_dir_outside_vault(self) -> Settings:
        vault = self.vault.path
        if vault is None:
            return self
        data = self.data_dir.resolve()
        root = vault.resolve()
        if data == root or root in data.parents:
            raise ValueError(
                f"data.directory {data} is inside the vault {root}; "
                "noema keeps its store outside the user's notes"
            )
        return self

    @model_validator(mode="after")
    def _pools_are_served(self) -> Settings:
        """A pool's servers are reached through litellm: the bundled model (started by
        noema itself) cannot be one of them."""
        for name in {"default", *self.models.roles}:
            role = self.role(name)
            if (role.provider or self.models.provider) == "local" and (
                role.deployments or role.fallback_roles
            ):
                raise ValueError(
                    f"role {name!r}: the bundled model (provider local) cannot be part of a "
                    "pool; remove its deployments/fallback_roles or choose another provider"
                )
        return self

    @property
    def data_dir(self) -> Path:
        """The effective data directory."""
        return self.data.directory or Path(user_data_dir("noema", appauthor=False))

    @property
    def store_path(self) -> Path:
        """The SQLite store (with a PostgreSQL store: the local vault index)."""
        return self.data_dir / "noema.sqlite3"

    def role(self, name: str) -> RoleModel:
        """The fully resolved model settings for a role (unset fields inherit [models])."""
        base = self.models
        override = base.roles.get(name) or base.roles.get("default") or RoleModel()
        values: dict[str, object] = {
            key: getattr(override, key)
            if getattr(override, key) is not None
            else getattr(base, key, None)
            for key in RoleModel.model_fields
        }
        return RoleModel.model_validate(values)
