package reproduce

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/ntksvm/ntksvm/internal/atomicfile"
)

// Row is one number of the paper beside ours.
type Row struct {
	Quantity string `json:"quantity"` // e.g. "KRR λ = 1: mean δ (full test)"
	// Paper is the paper's number exactly as printed (see ParsePaper).
	Paper string    `json:"paper"`
	Ours  float64   `json:"-"` // NaN if it could not be computed
	Tol   Tolerance `json:"tolerance"`
	// Reduction states how this row's run was reduced at this scale
	// ("width 10³, 5 of 100 epochs"); empty at the paper's scale.
	Reduction string `json:"reduction,omitempty"`
	// Reason says why ours may differ from the paper's number (a known
	// discrepancy of the authors' code, a reduced run); it is shown beside
	// any verdict but match.
	Reason string `json:"reason,omitempty"`

	// Filled by Judge (Result.Judge).
	Verdict Verdict `json:"verdict"`
	Diff    float64 `json:"-"`
}

func fmtJSONFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func parseJSONFloat(s string) (float64, error) {
	if s == "" {
		return math.NaN(), nil
	}
	return strconv.ParseFloat(s, 64)
}

// MarshalJSON writes Ours and Diff as strings ("NaN" when not a number).
func (r Row) MarshalJSON() ([]byte, error) {
	type plain Row
	return json.Marshal(struct {
		plain
		Ours string `json:"ours"`
		Diff string `json:"difference"`
	}{plain(r), fmtJSONFloat(r.Ours), fmtJSONFloat(r.Diff)})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (r *Row) UnmarshalJSON(b []byte) error {
	type plain Row
	var v struct {
		plain
		Ours string `json:"ours"`
		Diff string `json:"difference"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*r = Row(v.plain)
	var err error
	if r.Ours, err = parseJSONFloat(v.Ours); err != nil {
		return fmt.Errorf("row %q: ours: %w", r.Quantity, err)
	}
	if r.Diff, err = parseJSONFloat(v.Diff); err != nil {
		return fmt.Errorf("row %q: difference: %w", r.Quantity, err)
	}
	return nil
}

// Figure is an SVG document an entry produced.
type Figure struct {
	// Name is the file name without ".svg": letters, digits, '-', '_'.
	Name    string `json:"name"`
	Caption string `json:"caption"`
	SVG     []byte `json:"-"`
}

// Result is what an experiment produced.
type Result struct {
	Name  string `json:"name"`
	Title string `json:"title"`
	Paper string `json:"paper"` // what the paper reports
	Scale Scale  `json:"scale"`
	Rows  []Row  `json:"rows"`
	// Figures are saved as DIR/<name>/<figure>.svg; their SVG is not in
	// result.json.
	Figures []Figure `json:"figures,omitempty"`
	Notes   []string `json:"notes,omitempty"`
	// Reductions lists what this scale changed from the paper's run.
	Reductions []string `json:"reductions,omitempty"`
	// Wall is the experiment's wall time in seconds. An entry that continues
	// from checkpoints may set it to the time of all its sessions (the
	// Runner keeps the larger of that and this session's time).
	Wall     float64   `json:"wall_seconds"`
	Finished time.Time `json:"finished"`
}

// Judge fills in every row's verdict and difference. It returns an error
// for a row whose paper number or tolerance is malformed (a programmer
// error of the entry).
func (r *Result) Judge() error {
	for i := range r.Rows {
		row := &r.Rows[i]
		v, d, err := Judge(row.Paper, row.Ours, row.Tol)
		if err != nil {
			return fmt.Errorf("%s: row %q: %w", r.Name, row.Quantity, err)
		}
		row.Verdict, row.Diff = v, d
	}
	return nil
}

var figNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)

// ResultFile is the name of an experiment's saved result inside its
// directory; its presence marks the experiment as done.
const ResultFile = "result.json"

// Save writes r into dir: each figure as <name>.svg, then ResultFile, each
// atomically, so ResultFile exists only once everything else does.
func (r *Result) Save(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, f := range r.Figures {
		if !figNameRE.MatchString(f.Name) || seen[f.Name] {
			return fmt.Errorf("%s: figure name %q invalid or repeated", r.Name, f.Name)
		}
		seen[f.Name] = true
		if err := checkSVG(f.SVG); err != nil {
			return fmt.Errorf("%s: figure %s: %w", r.Name, f.Name, err)
		}
		if err := atomicfile.WriteFile(filepath.Join(dir, f.Name+".svg"), func(w io.Writer) error {
			_, err := w.Write(f.SVG)
			return err
		}); err != nil {
			return err
		}
	}
	return atomicfile.WriteFile(filepath.Join(dir, ResultFile), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	})
}

// LoadResult reads the result saved in dir by Save, with its figures. It
// returns an error wrapping os.ErrNotExist if the experiment has not
// finished there.
func LoadResult(dir string) (*Result, error) {
	b, err := os.ReadFile(filepath.Join(dir, ResultFile))
	if err != nil {
		return nil, err
	}
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ResultFile), err)
	}
	for i := range r.Figures {
		f := &r.Figures[i]
		if !figNameRE.MatchString(f.Name) {
			return nil, fmt.Errorf("%s: figure name %q invalid", dir, f.Name)
		}
		if f.SVG, err = os.ReadFile(filepath.Join(dir, f.Name+".svg")); err != nil {
			return nil, err
		}
		if err := checkSVG(f.SVG); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, f.Name+".svg"), err)
		}
	}
	return &r, nil
}

// checkSVG returns an error unless b is a well-formed XML document whose
// root element is svg.
func checkSVG(b []byte) error {
	d := xml.NewDecoder(bytes.NewReader(b))
	root := ""
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("not well-formed XML: %w", err)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" {
		return fmt.Errorf("not an SVG document (root %q)", root)
	}
	return nil
}

// CheckSVG returns an error unless b is a well-formed XML document whose
// root element is svg.
func CheckSVG(b []byte) error { return checkSVG(b) }
