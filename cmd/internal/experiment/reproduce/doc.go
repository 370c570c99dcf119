// Package reproduce runs the experiments of "On the Equivalence between
// Neural Network and Support Vector Machine" (Chen, Huang, Nguyen, Weng,
// NeurIPS 2021) from one registry and sets each of our numbers beside the
// paper's. It is the library behind "ntksvm reproduce".
//
// # Entries
//
// Each experiment (a table or a figure of the paper) is one Entry in a
// Registry: its name (table2, table3, fig1, …), a title, what the paper
// reports, and a Run that calls the library code of packages svm, ntk,
// ibp and the commands' shared packages — never a second implementation of
// them. Run returns a Result: rows (a quantity, the paper's number as
// printed, ours, a Tolerance, the reduction applied at this scale and the
// reason a difference is expected), figures as SVG documents, notes and
// the reductions applied. Default holds the entries of the paper; an entry
// whose code has not landed is not registered.
//
// # Verdicts
//
// A row's Verdict compares ours with the paper's number: "match" when they
// agree to the precision the paper prints (half a unit in its last digit;
// equality for Exact), "within tolerance" when the difference is inside the
// row's Tolerance (relative, absolute, or a band for ours alone), else
// "differs", with the row's Reason when one is known (for example, the
// authors' network regulariser decays at λ/m, train_sgd.py).
//
// # Runs
//
// A Runner runs the selected entries in order at one Scale (Quick, minutes
// on a laptop with every reduction stated beside its row, or Paper, the
// paper's sizes) and saves each finished experiment at once in
// DIR/<name>/: its figures, then result.json, each written atomically, so
// result.json marks a finished experiment. With Resume the entries whose
// result.json is there, at the same scale, are loaded instead of run, so an
// interrupted run re-runs only the interrupted experiment and those after
// it; the network experiments (fig1, figA1) do not even start that one
// afresh but continue from the checkpoints their training wrote when
// interrupted (and every ten minutes or so), bit for bit as if never
// stopped, provided the saved configuration is exactly the one they would
// run. After every experiment the Runner rewrites DIR/report.md,
// DIR/report.html (self-contained, package report) and DIR/results.json.
//
// At Paper scale, before any experiment runs, each entry's Estimate times a
// first step of its work (a Gram block, one factorisation, a few training
// steps) and extrapolates; the Runner prints these and their total.
package reproduce
