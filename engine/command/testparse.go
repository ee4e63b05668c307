package command

import (
	"bufio"
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/agentic-workspace/aw/engine/store"
)

// Reading a test run's logs back into results. Every parser streams the
// log files line by line with bounded memory (a line longer than
// maxParsedLine is cut, the output kept per test is a bounded tail), so a
// run that printed gigabytes is read in constant space.

const (
	maxParsedLine   = 1 << 20 // a go test -json event holding a long output line
	maxExcerptBytes = 4000    // the end of one failing test's output
	maxExcerptLines = 60
	maxKeptFailures = 200 // failing tests whose excerpts are kept while parsing
)

// testResults is what the logs said.
type testResults struct {
	counted                 bool
	passed, failed, skipped int
	failures                []TestFailure
	omitted                 int // failing tests past maxKeptFailures
	notes                   []string
}

func (r *testResults) addFailure(f TestFailure) {
	if len(r.failures) >= maxKeptFailures {
		r.omitted++
		return
	}
	r.failures = append(r.failures, f)
}

// parseResults reads a finished test job's logs with the runner's parsers:
// go test's JSON events, else its own text parsers, else every text
// parser (a make recipe may run any of them). Nothing found: not counted.
func parseResults(s *store.Store, j *Job, r *testRunner) *testResults {
	out, errLog := logAbs(s, j.Stdout.Path), logAbs(s, j.Stderr.Path)
	if r.json {
		if res := parseGoJSON(out); res.counted {
			return res
		}
	}
	order := append([]string{}, r.parsers...)
	for _, p := range textParsers {
		if indexOf(order, p.name) < 0 {
			order = append(order, p.name)
		}
	}
	states := make([]*textState, len(order))
	for i, name := range order {
		states[i] = &textState{p: parserNamed(name), res: &testResults{}}
	}
	for _, path := range []string{out, errLog} {
		eachLine(path, func(line string) {
			line = stripANSI(line)
			for _, st := range states {
				st.p.line(st, line)
			}
		})
	}
	for _, st := range states {
		if st.res.counted {
			st.finish()
			return st.res
		}
	}
	return &testResults{}
}

// eachLine calls fn with every line of the file, without its line end,
// cut at maxParsedLine.
func eachLine(path string, fn func(string)) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	var long []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			if len(long) < maxParsedLine {
				long = append(long, chunk[:min(len(chunk), maxParsedLine-len(long))]...)
			}
			continue
		}
		if len(chunk) > 0 || len(long) > 0 {
			line := chunk
			if long != nil {
				if len(long) < maxParsedLine {
					long = append(long, chunk[:min(len(chunk), maxParsedLine-len(long))]...)
				}
				line = long
			}
			fn(strings.TrimRight(string(line), "\r\n"))
			long = nil
		}
		if err != nil {
			return // io.EOF, or a log that cannot be read further
		}
	}
}

var ansi = lazyRegexp(`\x1b\[[0-9;?]*[A-Za-z]`)

func stripANSI(s string) string {
	if strings.IndexByte(s, 0x1b) < 0 {
		return s
	}
	return ansi().ReplaceAllString(s, "")
}

// excerpt is the bounded tail of one test's output.
type excerpt struct {
	lines []string
	bytes int
	cut   bool
}

func (e *excerpt) add(line string) {
	if len(line) > maxExcerptBytes {
		line, e.cut = line[:maxExcerptBytes], true
	}
	e.lines = append(e.lines, line)
	e.bytes += len(line) + 1
	for len(e.lines) > maxExcerptLines || e.bytes > maxExcerptBytes {
		e.bytes -= len(e.lines[0]) + 1
		e.lines, e.cut = e.lines[1:], true
	}
}

func (e *excerpt) text() string {
	if e == nil || len(e.lines) == 0 {
		return ""
	}
	return strings.Join(e.lines, "\n") + "\n"
}

// goEvent is one line of go test -json (test2json), with go build's
// build-output events.
type goEvent struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string
}

// parseGoJSON counts test events and keeps the output of each running
// test until it passes (dropped) or fails (kept). A package that failed
// without a failing test (it did not build, it panicked in init) is a
// failure of its own.
func parseGoJSON(path string) *testResults {
	res := &testResults{}
	running := map[string]*excerpt{} // package \x00 test
	pkgOut := map[string]*excerpt{}  // package-level output and build output
	failedIn := map[string]bool{}    // packages with a failing test
	failedBelow := map[string]bool{} // package \x00 test with a failing subtest
	events := 0
	keep := func(m map[string]*excerpt, k, line string) {
		e := m[k]
		if e == nil {
			if len(m) >= 4*maxKeptFailures {
				return // bounded even with thousands of parallel tests
			}
			e = &excerpt{}
			m[k] = e
		}
		e.add(line)
	}
	eachLine(path, func(line string) {
		if !strings.HasPrefix(line, "{") {
			return
		}
		var ev goEvent
		if json.Unmarshal([]byte(line), &ev) != nil {
			return
		}
		events++
		out := strings.TrimRight(ev.Output, "\n")
		switch ev.Action {
		case "build-output":
			if f := strings.Fields(ev.ImportPath); len(f) > 0 {
				keep(pkgOut, f[0], out)
			}
			return
		case "output":
			if ev.Test == "" {
				keep(pkgOut, ev.Package, out)
				return
			}
			if strings.HasPrefix(out, "=== RUN") || strings.HasPrefix(out, "=== PAUSE") || strings.HasPrefix(out, "=== CONT") || strings.HasPrefix(out, "=== NAME") {
				return
			}
			keep(running, ev.Package+"\x00"+ev.Test, out)
			return
		}
		if ev.Test == "" {
			if ev.Action == "fail" && !failedIn[ev.Package] {
				e := pkgOut[ev.Package]
				res.addFailure(TestFailure{Package: ev.Package, Output: e.text(), OutputTruncated: e != nil && e.cut})
				res.counted = true
			}
			if ev.Action == "pass" || ev.Action == "fail" || ev.Action == "skip" {
				res.counted = true
				delete(pkgOut, ev.Package)
			}
			return
		}
		key := ev.Package + "\x00" + ev.Test
		switch ev.Action {
		case "pass":
			res.passed++
		case "skip":
			res.skipped++
		case "fail":
			res.failed++
			failedIn[ev.Package] = true
			// A parent whose subtest failed says only "--- FAIL": the
			// subtest is the one listed. Subtests end before their parent.
			for p := ev.Test; strings.Contains(p, "/"); {
				p = p[:strings.LastIndexByte(p, '/')]
				failedBelow[ev.Package+"\x00"+p] = true
			}
			if !failedBelow[key] {
				e := running[key]
				res.addFailure(TestFailure{Name: ev.Test, Package: ev.Package, Output: e.text(), OutputTruncated: e != nil && e.cut})
			}
		default:
			return
		}
		res.counted = true
		delete(running, key)
	})
	if events > 0 && !res.counted {
		res.notes = append(res.notes, "go test printed JSON events but no test or package result: the run ended early")
	}
	return res
}

// textParser reads one runner's text output: its summary line gives the
// counts; its failure lines name the failing tests; lines after a failure
// header are that test's output.
type textParser struct {
	name string
	line func(st *textState, line string)
}

// textState is one parser's progress through the logs.
type textState struct {
	p   *textParser
	res *testResults
	// the failing tests found, by name, with the output being collected
	byName  map[string]*TestFailure
	order   []string
	cur     *excerpt
	curName string
	ex      map[string]*excerpt
}

// failing records a failing test (once) and, when collect, starts
// collecting the lines that follow as its output.
func (st *textState) failing(name, pkg string, collect bool) {
	if st.byName == nil {
		st.byName, st.ex = map[string]*TestFailure{}, map[string]*excerpt{}
	}
	if _, ok := st.byName[name]; !ok {
		if len(st.order) >= maxKeptFailures {
			st.res.omitted++
			st.cur = nil
			return
		}
		st.byName[name] = &TestFailure{Name: name, Package: pkg}
		st.order = append(st.order, name)
	}
	if collect {
		st.section(name)
	}
}

// section starts collecting lines as the output of name (its failure may
// be listed later, as in pytest's and cargo's summaries).
func (st *textState) section(name string) {
	if st.ex == nil {
		st.byName, st.ex = map[string]*TestFailure{}, map[string]*excerpt{}
	}
	if st.ex[name] == nil {
		if len(st.ex) >= maxKeptFailures {
			st.cur = nil
			return
		}
		st.ex[name] = &excerpt{}
	}
	st.cur, st.curName = st.ex[name], name
}

func (st *textState) collect(line string) {
	if st.cur != nil {
		st.cur.add(line)
	}
}

func (st *textState) count(passed, failed, skipped int) {
	st.res.counted = true
	st.res.passed += passed
	st.res.failed += failed
	st.res.skipped += skipped
}

// finish joins the failing tests with the output collected for them.
func (st *textState) finish() {
	for _, name := range st.order {
		f := *st.byName[name]
		e := st.ex[name]
		if e == nil {
			// pytest lists a method as Class::test and heads its section
			// Class.test.
			e = st.ex[strings.ReplaceAll(name, "::", ".")]
		}
		f.Output, f.OutputTruncated = e.text(), e != nil && e.cut
		st.res.addFailure(f)
	}
}

// counts reads "1 failed, 2 passed, 3 total"-style lists (any separator
// of , | ;) into the number before each word.
func counts(list string) map[string]int {
	out := map[string]int{}
	for _, m := range countWord().FindAllStringSubmatch(list, -1) {
		n, _ := strconv.Atoi(m[1])
		out[strings.ToLower(m[2])] += n
	}
	return out
}

var countWord = lazyRegexp(`(\d+) ([A-Za-z]+)`)

var (
	pytestSummary = lazyRegexp(`^=*\s*((?:\d+ (?:passed|failed|skipped|errors?|xfailed|xpassed|deselected|warnings?)(?:, )?)+)(?: in [\d.]+s.*)?\s*=*$`)
	pytestFailure = lazyRegexp(`^(FAILED|ERROR) (\S+?)(?: - .*)?$`)
	pytestSection = lazyRegexp(`^_{3,} (.+?) _{3,}$`)
	pytestRule    = lazyRegexp(`^={3,}`)

	jestSummary = lazyRegexp(`^Tests:\s+(.*\d+ total.*)$`)
	jestFailure = lazyRegexp(`^\s+● (.+)$`)

	vitestSummary = lazyRegexp(`^\s*Tests\s+(\d+ (?:failed|passed|skipped|todo).*)$`)
	vitestFailure = lazyRegexp(`^\s*FAIL\s+(\S+) > (.+?)(?: \d+ms)?$`)

	nodeCount   = lazyRegexp(`^(?:ℹ|#) (pass|fail|skipped|todo|cancelled) (\d+)$`)
	nodeFailure = lazyRegexp(`^(\s*)✖ (.+?)(?: \([\d.]+m?s\))?$`)
	nodeTAPFail = lazyRegexp(`^\s*not ok \d+ - (.+?)(?: # .*)?$`)

	cargoSummary = lazyRegexp(`^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored`)
	cargoFailure = lazyRegexp(`^test (\S+) \.\.\. FAILED$`)
	cargoSection = lazyRegexp(`^---- (\S+) std(?:out|err) ----$`)

	mochaCount = lazyRegexp(`^\s+(\d+) (passing|failing|pending)(?: \(\d+m?s\))?$`)

	plainSummary = lazyRegexp(`^(?:\w+: )?(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$`)
)

// textParsers, in the order a command aw does not know is read with.
var textParsers = []*textParser{
	{name: "pytest", line: func(st *textState, l string) {
		switch {
		case pytestSection().MatchString(l):
			st.section(pytestSection().FindStringSubmatch(l)[1])
		case pytestRule().MatchString(l):
			st.cur = nil
			if m := pytestSummary().FindStringSubmatch(l); m != nil {
				c := counts(m[1])
				st.count(c["passed"]+c["xpassed"], c["failed"]+c["error"]+c["errors"], c["skipped"]+c["xfailed"])
			}
		case pytestFailure().MatchString(l):
			m := pytestFailure().FindStringSubmatch(l)
			file, name, _ := strings.Cut(m[2], "::")
			if name == "" {
				name, file = file, ""
			}
			st.failing(name, file, false)
		default:
			if m := pytestSummary().FindStringSubmatch(l); m != nil && strings.Contains(l, " in ") {
				c := counts(m[1])
				st.count(c["passed"]+c["xpassed"], c["failed"]+c["error"]+c["errors"], c["skipped"]+c["xfailed"])
				return
			}
			st.collect(l)
		}
	}},
	{name: "jest", line: func(st *textState, l string) {
		if m := jestSummary().FindStringSubmatch(l); m != nil {
			c := counts(m[1])
			st.count(c["passed"], c["failed"], c["skipped"]+c["todo"])
			st.cur = nil
			return
		}
		if m := jestFailure().FindStringSubmatch(l); m != nil && m[1] != "Console" {
			suite, name := "", m[1]
			if i := strings.LastIndex(name, " › "); i >= 0 {
				suite = name[:i]
			}
			st.failing(name, suite, true)
			return
		}
		if strings.HasPrefix(l, "Test Suites:") {
			st.cur = nil
			return
		}
		st.collect(l)
	}},
	{name: "vitest", line: func(st *textState, l string) {
		if m := vitestSummary().FindStringSubmatch(l); m != nil {
			c := counts(m[1])
			st.count(c["passed"], c["failed"], c["skipped"]+c["todo"])
			st.cur = nil
			return
		}
		if m := vitestFailure().FindStringSubmatch(l); m != nil {
			st.failing(m[2], m[1], true)
			return
		}
		if strings.Contains(l, "Test Files ") {
			st.cur = nil
			return
		}
		st.collect(l)
	}},
	{name: "node", line: func(st *textState, l string) {
		if m := nodeCount().FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[2])
			st.res.counted = true
			switch m[1] {
			case "pass":
				st.res.passed = n
			case "fail":
				st.res.failed = n
			case "skipped", "todo":
				st.res.skipped += n
			}
			st.cur = nil
			return
		}
		if m := nodeFailure().FindStringSubmatch(l); m != nil {
			if m[2] == "failing tests:" {
				st.cur = nil
				return
			}
			// The first report of a test collects its output; the
			// closing "failing tests" list repeats it.
			_, seen := st.byName[m[2]]
			st.failing(m[2], "", !seen)
			if seen {
				st.cur = nil
			}
			return
		}
		if m := nodeTAPFail().FindStringSubmatch(l); m != nil {
			st.failing(m[1], "", true)
			return
		}
		if strings.HasPrefix(l, "✔ ") || strings.HasPrefix(l, "ok ") || strings.HasPrefix(l, "ℹ ") || strings.HasPrefix(l, "# ") {
			st.cur = nil
			return
		}
		st.collect(l)
	}},
	{name: "cargo", line: func(st *textState, l string) {
		switch {
		case cargoSummary().MatchString(l):
			m := cargoSummary().FindStringSubmatch(l)
			p, _ := strconv.Atoi(m[1])
			f, _ := strconv.Atoi(m[2])
			i, _ := strconv.Atoi(m[3])
			st.count(p, f, i)
			st.cur = nil
		case cargoFailure().MatchString(l):
			st.failing(cargoFailure().FindStringSubmatch(l)[1], "", false)
		case cargoSection().MatchString(l):
			st.section(cargoSection().FindStringSubmatch(l)[1])
		case l == "failures:" || strings.HasPrefix(l, "error: test failed"):
			st.cur = nil
		default:
			st.collect(l)
		}
	}},
	{name: "mocha", line: func(st *textState, l string) {
		if m := mochaCount().FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[1])
			switch m[2] {
			case "passing":
				st.count(n, 0, 0)
			case "failing":
				st.count(0, n, 0)
			case "pending":
				st.count(0, 0, n)
			}
		}
	}},
	{name: "plain", line: func(st *textState, l string) {
		if m := plainSummary().FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			p, _ := strconv.Atoi(m[1])
			f, _ := strconv.Atoi(m[2])
			s, _ := strconv.Atoi(m[3])
			st.count(p, f, s)
		}
	}},
}

func parserNamed(name string) *textParser {
	for _, p := range textParsers {
		if p.name == name {
			return p
		}
	}
	return textParsers[len(textParsers)-1]
}

// lazyRegexp compiles a pattern on first use: every aw call pays package
// init, and only command test reads runners' output.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
