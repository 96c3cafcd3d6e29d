"""The custom search attributes the Web UI filters on (registered by `make up` and the tests)."""

from temporalio.common import SearchAttributeKey

STAGE_KEY = SearchAttributeKey.for_keyword("ArkevoStage")
SEED_KEY = SearchAttributeKey.for_keyword("ArkevoSeedId")
