package reproduce

// The paper's experiments in the order they run: the two robustness tables
// (which share the training Gram matrix), then the figures.
func init() {
	for _, e := range []*Entry{table3Entry, table2Entry, fig1Entry, figA1Entry, figB2Entry} {
		register(e)
	}
}
