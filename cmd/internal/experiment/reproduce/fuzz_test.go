package reproduce

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzResult reads arbitrary bytes as an experiment's saved result.json
// and its figure fig.svg (what "reproduce" reads back to resume and to
// render the report): LoadResult must never panic, and a result it
// accepts is judged and rendered without panicking, its figures being
// well-formed SVG.
func FuzzResult(f *testing.F) {
	svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="1" height="1"/></svg>`)
	f.Add([]byte(`{"name":"table2","title":"T","paper":"p","scale":"smoke","rows":[{"quantity":"q","paper":"0.50","ours":"0.48","difference":"-0.02","tolerance":{"kind":"abs","value":0.05}}],"figures":[{"name":"fig","caption":"c"}]}`), svg)
	f.Add([]byte(`{"name":"x","rows":[{"quantity":"q","paper":"1.2e3","ours":"NaN","difference":"NaN"}]}`), svg)
	f.Add([]byte(`{"name":"x","figures":[{"name":"../fig"}]}`), []byte("<svg"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, result, fig []byte) {
		if err := os.WriteFile(filepath.Join(dir, ResultFile), result, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "fig.svg"), fig, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := LoadResult(dir)
		if err != nil {
			return
		}
		for _, g := range r.Figures {
			if err := checkSVG(g.SVG); err != nil {
				t.Fatalf("accepted figure %s: %v", g.Name, err)
			}
		}
		if r.Judge() == nil {
			resultSection(r)
		}
	})
}
