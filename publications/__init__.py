"""A publication: an immutable release of a frozen task in the object store -- where its files
live (`layout`), how `publication.json` is written (`writer`) and how a reader gets a file held
to the sha256 `publication.json` lists (`reader`). Packaging writes them; campaigns, the review
site, exports and dataset revisions read them, all through here."""

from contracts.entry_points import refuse_non_command

refuse_non_command(__name__, __path__)
