package dataset

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
)

// arffAttr is one @attribute: numeric, or nominal with its values.
type arffAttr struct {
	name    string
	nominal []string // nil for numeric
}

// ReadARFF reads Weka's ARFF format (dense @data): numeric attributes
// (numeric, real, integer) are features, nominal attributes other than the
// class are one-hot encoded into one column per declared value (named
// "attribute=value"; a missing nominal value is a missing value), and the
// class is the attribute o.Label names, else the one named "class", else
// the last. String, date and relational attributes and sparse rows are
// refused.
func ReadARFF(r io.Reader, name string, o Options) (*Dataset, error) {
	sc := bufio.NewScanner(r)
	limit := maxLineBytes(o)
	sc.Buffer(make([]byte, 0, min(1<<16, limit)), limit)
	var attrs []arffAttr
	line := 0
	inData := false
	t := &table{source: name}
	classCol := -1
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if line == 1 {
			s = strings.TrimPrefix(s, "\ufeff")
		}
		if s == "" || s[0] == '%' {
			continue
		}
		if !inData {
			lower := strings.ToLower(s)
			switch {
			case strings.HasPrefix(lower, "@relation"):
			case strings.HasPrefix(lower, "@attribute"):
				a, err := parseAttribute(s[len("@attribute"):])
				if err != nil {
					return nil, fmt.Errorf("%w: %s: line %d: %v", ErrData, name, line, err)
				}
				for _, b := range attrs {
					if b.name == a.name {
						return nil, fmt.Errorf("%w: %s: line %d: attribute %q declared twice", ErrData, name, line, a.name)
					}
				}
				attrs = append(attrs, a)
			case strings.HasPrefix(lower, "@data"):
				inData = true
				var err error
				if classCol, err = arffClass(attrs, o.Label); err != nil {
					return nil, fmt.Errorf("%w: %s: %v", ErrData, name, err)
				}
				t.features = arffFeatures(attrs, classCol)
				t.cols = len(t.features)
			default:
				return nil, fmt.Errorf("%w: %s: line %d: %q is not an ARFF header line", ErrData, name, line, truncate(s))
			}
			continue
		}
		if s[0] == '{' {
			return nil, fmt.Errorf("%w: %s: line %d: sparse ARFF rows are not supported", ErrData, name, line)
		}
		cr := csv.NewReader(strings.NewReader(strings.ReplaceAll(s, "'", "\"")))
		cr.LazyQuotes = true
		rec, err := cr.Read()
		if err != nil {
			return nil, fmt.Errorf("%w: %s: line %d: %v", ErrData, name, line, err)
		}
		if len(rec) != len(attrs) {
			return nil, fmt.Errorf("%w: %s: line %d has %d values, %d attributes are declared", ErrData, name, line, len(rec), len(attrs))
		}
		cells, err := oneHot(rec, attrs, classCol)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: line %d: %v", ErrData, name, line, err)
		}
		if err := t.addRow(cells, len(cells)-1, line, o.Missing, func(j int) string {
			if j == len(cells)-1 {
				return fmt.Sprintf("%q (the class)", attrs[classCol].name)
			}
			return fmt.Sprintf("%q", t.features[j])
		}); err != nil {
			return nil, err
		}
		if len(t.labels)%4096 == 0 {
			if err := checkMemory(name, o, len(t.labels), t.cols); err != nil {
				return nil, err
			}
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, lineTooLong(name, line+1, limit)
		}
		return nil, fmt.Errorf("dataset: %s: line %d: %w", name, line+1, err)
	}
	if !inData {
		return nil, fmt.Errorf("%w: %s: no @data section", ErrData, name)
	}
	return t.dataset()
}

// parseAttribute parses what follows "@attribute": a name (quoted or not)
// and a type.
func parseAttribute(s string) (arffAttr, error) {
	s = strings.TrimSpace(s)
	var a arffAttr
	if s != "" && (s[0] == '\'' || s[0] == '"') {
		end := strings.IndexByte(s[1:], s[0])
		if end < 0 {
			return a, fmt.Errorf("unterminated attribute name %s", s)
		}
		a.name, s = s[1:end+1], strings.TrimSpace(s[end+2:])
	} else {
		f := strings.Fields(s)
		if len(f) < 2 {
			return a, fmt.Errorf("attribute %q has no type", s)
		}
		a.name, s = f[0], strings.TrimSpace(s[len(f[0]):])
	}
	if strings.HasPrefix(s, "{") {
		end := strings.LastIndexByte(s, '}')
		if end < 0 {
			return a, fmt.Errorf("attribute %q: unterminated value list", a.name)
		}
		a.nominal = []string{}
		for _, v := range strings.Split(s[1:end], ",") {
			v = strings.Trim(strings.TrimSpace(v), `'"`)
			a.nominal = append(a.nominal, v)
		}
		return a, nil
	}
	typ := strings.Fields(s)
	if len(typ) == 0 { // a quoted name with nothing after it
		return a, fmt.Errorf("attribute %q has no type", a.name)
	}
	switch strings.ToLower(typ[0]) {
	case "numeric", "real", "integer":
		return a, nil
	}
	return a, fmt.Errorf("attribute %q has type %s: only numeric and nominal attributes are supported", a.name, s)
}

// arffClass returns the index of the class attribute.
func arffClass(attrs []arffAttr, label string) (int, error) {
	if len(attrs) < 2 {
		return 0, fmt.Errorf("%d attributes: want features and a class", len(attrs))
	}
	want := label
	if want == "" {
		want = "class"
	}
	for i, a := range attrs {
		if strings.EqualFold(a.name, want) {
			return i, nil
		}
	}
	if label != "" {
		return 0, fmt.Errorf("no attribute is named %q", label)
	}
	return len(attrs) - 1, nil
}

// arffFeatures names the feature columns: numeric attributes as they are,
// nominal ones as "name=value" per declared value.
func arffFeatures(attrs []arffAttr, classCol int) []string {
	var f []string
	for i, a := range attrs {
		switch {
		case i == classCol:
		case a.nominal == nil:
			f = append(f, a.name)
		default:
			for _, v := range a.nominal {
				f = append(f, a.name+"="+v)
			}
		}
	}
	return f
}

// oneHot turns an ARFF row into CSV-like cells: the features (nominal ones
// one-hot) and then the class.
func oneHot(rec []string, attrs []arffAttr, classCol int) ([]string, error) {
	var cells []string
	for i, a := range attrs {
		v := strings.TrimSpace(rec[i])
		if i == classCol {
			continue
		}
		if a.nominal == nil {
			cells = append(cells, v)
			continue
		}
		if v == "?" {
			for range a.nominal {
				cells = append(cells, "?")
			}
			continue
		}
		found := false
		for _, nv := range a.nominal {
			if nv == v {
				cells, found = append(cells, "1"), true
			} else {
				cells = append(cells, "0")
			}
		}
		if !found {
			return nil, fmt.Errorf("attribute %q: value %q is not one of its declared values", a.name, v)
		}
	}
	c := strings.TrimSpace(rec[classCol])
	if n := attrs[classCol].nominal; n != nil && c != "?" {
		ok := false
		for _, v := range n {
			ok = ok || v == c
		}
		if !ok {
			return nil, fmt.Errorf("class %q is not one of the declared classes", c)
		}
	}
	return append(cells, c), nil
}

// truncate shortens s for an error message.
func truncate(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
