package output

import (
	"fmt"
	"io"
	"strings"
)

// ClassReport writes the accuracy of the predicted class names pred against
// the true ones, the confusion matrix (rows: true class, columns:
// predicted) and the recall of each class. classes are the classes the
// model knows, in its order; a true class it does not know gets a row of its
// own and counts as wrong.
func ClassReport(w io.Writer, name string, classes, truth, pred []string) {
	index := map[string]int{}
	for i, c := range classes {
		index[c] = i
	}
	names := append([]string(nil), classes...)
	for _, t := range truth {
		if _, ok := index[t]; !ok {
			index[t], names = len(names), append(names, t)
		}
	}
	conf := make([][]int, len(names))
	for t := range conf {
		conf[t] = make([]int, len(names))
	}
	n, right := len(pred), 0
	for i, p := range pred {
		conf[index[truth[i]]][index[p]]++
		if truth[i] == p {
			right++
		}
	}
	fmt.Fprintf(w, "%s: accuracy %.2f%% (%d of %d)\n", name, 100*float64(right)/float64(n), right, n)
	width := 6
	for _, c := range names {
		width = max(width, len(c))
	}
	fmt.Fprintf(w, "%*s", width+2, "true\\pred")
	for _, c := range names {
		fmt.Fprintf(w, " %*s", width, c)
	}
	fmt.Fprintf(w, " %8s\n", "recall")
	for t, row := range conf {
		fmt.Fprintf(w, "%*s", width+2, names[t])
		total := 0
		for _, v := range row {
			fmt.Fprintf(w, " %*d", width, v)
			total += v
		}
		if total > 0 {
			fmt.Fprintf(w, " %7.2f%%\n", 100*float64(row[t])/float64(total))
		} else {
			fmt.Fprintf(w, " %8s\n", "-")
		}
	}
}

// CSVField quotes s for a CSV line when it needs it.
func CSVField(s string) string {
	if strings.ContainsAny(s, ",\"\r\n") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}
