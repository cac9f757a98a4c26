"""Dataset seeds: dataset adapters, polarity lexicons, the search phase, capability templates, and CheckList's
released suites as a test source."""
