// Command mutantscore reads the JSON reports gremlins writes (one per
// package), prints every surviving mutant with file:line and the kill rate
// of each package, and with -check fails when a package's kill rate or
// mutant coverage is below its line in the thresholds file. scripts/mutants
// runs it; see there.
//
// Kill rate is caught / (caught + lived): a mutant is caught when a test
// fails (KILLED) or hangs (TIMED OUT, the test binary's own timeout would
// fail CI too). Mutants listed in the equivalents file (file:line:column and
// mutator, with the reason they cannot change behaviour) do not count.
// Mutant coverage is the share of mutants that some test runs at all.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
)

// report is the part of gremlins' -o file that is read.
type report struct {
	Files []struct {
		Name      string `json:"file_name"`
		Mutations []struct {
			Type   string `json:"type"`
			Status string `json:"status"`
			Line   int    `json:"line"`
			Column int    `json:"column"`
		} `json:"mutations"`
	} `json:"files"`
}

// mutant is one mutation of a package, named as the equivalents file names it.
type mutant struct {
	Pos    string // engine/gate/state.go:104:57
	Type   string // CONDITIONALS_NEGATION
	Status string // KILLED, LIVED, TIMED OUT, NOT COVERED, NOT VIABLE, SKIPPED
}

func (m mutant) key() string { return m.Pos + " " + m.Type }

// score is one package's tally.
type score struct {
	Pkg                                       string
	Caught, Lived, Equivalent, Uncovered, All int
	Survivors                                 []mutant
}

// KillRate is caught/(caught+lived) in percent, 100 when nothing ran.
func (s score) KillRate() float64 {
	if s.Caught+s.Lived == 0 {
		return 100
	}
	return 100 * float64(s.Caught) / float64(s.Caught+s.Lived)
}

// Coverage is the share of mutants some test ran, in percent.
func (s score) Coverage() float64 {
	if s.All == 0 {
		return 100
	}
	return 100 * float64(s.All-s.Uncovered) / float64(s.All)
}

// fileOf names a report's file from the repository root. gremlins names
// it from the package it was run on, a subpackage's file with its
// directory (engine/policy's report holds rule/rule.go); an absolute
// name keeps only its base.
func fileOf(pkg, name string) string {
	if path.IsAbs(name) {
		return path.Join(pkg, path.Base(name))
	}
	return path.Join(pkg, name)
}

// tally scores one package's report; equivalent holds mutant keys.
func tally(pkg string, r report, equivalent map[string]bool) score {
	s := score{Pkg: pkg}
	for _, f := range r.Files {
		for _, m := range f.Mutations {
			mu := mutant{Pos: fmt.Sprintf("%s:%d:%d", fileOf(pkg, f.Name), m.Line, m.Column), Type: m.Type, Status: m.Status}
			switch m.Status {
			case "NOT VIABLE", "SKIPPED": // does not compile, or not asked for
				continue
			}
			s.All++
			switch {
			case m.Status == "NOT COVERED":
				s.Uncovered++
			case equivalent[mu.key()]:
				s.Equivalent++
			case m.Status == "KILLED" || m.Status == "TIMED OUT":
				s.Caught++
			default:
				s.Lived++
				s.Survivors = append(s.Survivors, mu)
			}
		}
	}
	sort.Slice(s.Survivors, func(i, j int) bool { return s.Survivors[i].Pos < s.Survivors[j].Pos })
	return s
}

// threshold is a package's minimum kill rate and mutant coverage.
type threshold struct{ KillRate, Coverage float64 }

// readLines returns the non-comment lines of a file split into fields;
// a missing file is empty.
func readLines(name string) ([][]string, error) {
	f, err := os.Open(name)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, strings.Fields(line))
	}
	return out, sc.Err()
}

// readEquivalents reads "file:line:column MUTATOR reason..." lines.
func readEquivalents(name string) (map[string]bool, error) {
	lines, err := readLines(name)
	out := map[string]bool{}
	for _, f := range lines {
		if len(f) < 3 {
			return nil, fmt.Errorf("%s: %q: want file:line:column MUTATOR reason", name, strings.Join(f, " "))
		}
		out[f[0]+" "+f[1]] = true
	}
	return out, err
}

// readThresholds reads "package min-kill-rate min-coverage [exclude]"
// lines (scripts/mutants passes the exclude regexp to gremlins).
func readThresholds(name string) (map[string]threshold, error) {
	lines, err := readLines(name)
	out := map[string]threshold{}
	for _, f := range lines {
		if len(f) != 3 && len(f) != 4 {
			return nil, fmt.Errorf("%s: %q: want package min-kill-rate min-coverage [excluded-files-regexp]", name, strings.Join(f, " "))
		}
		k, err1 := strconv.ParseFloat(f[1], 64)
		c, err2 := strconv.ParseFloat(f[2], 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%s: %q: the rates are percentages", name, strings.Join(f, " "))
		}
		out[f[0]] = threshold{k, c}
	}
	return out, err
}

// print writes the survivors and the per-package table, and returns the
// packages under their threshold.
func print(w io.Writer, scores []score, limits map[string]threshold, check bool) []string {
	var failed []string
	for _, s := range scores {
		for _, m := range s.Survivors {
			fmt.Fprintf(w, "LIVED %s %s\n", m.Pos, m.Type)
		}
	}
	fmt.Fprintf(w, "\n%-18s %7s %6s %6s %6s %6s %9s %9s\n", "package", "mutants", "caught", "lived", "equiv", "uncov", "kill rate", "coverage")
	for _, s := range scores {
		note := ""
		if lim, ok := limits[s.Pkg]; check && ok {
			if s.KillRate() < lim.KillRate || s.Coverage() < lim.Coverage {
				note = fmt.Sprintf("  BELOW the threshold (%.1f%% kill rate, %.1f%% coverage)", lim.KillRate, lim.Coverage)
				failed = append(failed, s.Pkg)
			}
		} else if check {
			note = "  (no threshold)"
		}
		fmt.Fprintf(w, "%-18s %7d %6d %6d %6d %6d %8.1f%% %8.1f%%%s\n", s.Pkg, s.All, s.Caught, s.Lived, s.Equivalent, s.Uncovered, s.KillRate(), s.Coverage(), note)
	}
	return failed
}

func main() {
	check := flag.Bool("check", false, "exit 1 when a package is below its threshold")
	eqFile := flag.String("equivalent", "scripts/mutants.equivalent", "equivalent mutants, one per line")
	thFile := flag.String("thresholds", "scripts/mutants.thresholds", "minimum kill rate and coverage per package")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: mutantscore [-check] package=gremlins-report.json...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "mutantscore:", err)
		os.Exit(2)
	}
	equivalent, err := readEquivalents(*eqFile)
	if err != nil {
		fail(err)
	}
	limits, err := readThresholds(*thFile)
	if err != nil {
		fail(err)
	}
	var scores []score
	for _, arg := range flag.Args() {
		pkg, file, ok := strings.Cut(arg, "=")
		if !ok {
			fail(fmt.Errorf("%q: want package=report.json", arg))
		}
		data, err := os.ReadFile(file)
		if err != nil {
			fail(err)
		}
		var r report
		if err := json.Unmarshal(data, &r); err != nil {
			fail(fmt.Errorf("%s: %v", file, err))
		}
		scores = append(scores, tally(pkg, r, equivalent))
	}
	if failed := print(os.Stdout, scores, limits, *check); len(failed) > 0 {
		fmt.Fprintf(os.Stderr, "\nmutation testing: %s below the threshold in %s: a rule lost its test (add one that kills the survivor, or list a true equivalent in %s)\n", strings.Join(failed, ", "), *thFile, *eqFile)
		os.Exit(1)
	}
}
