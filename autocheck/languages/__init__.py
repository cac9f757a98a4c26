"""Language profiles: what is particular to one language, in one place (see ``LanguageProfile``)."""
