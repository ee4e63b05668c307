package rule

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// show is a token list as one string: words in brackets, operators bare.
func show(toks []Token) string {
	var b strings.Builder
	for _, t := range toks {
		if t.Op != "" {
			b.WriteString(t.Op + " ")
			continue
		}
		b.WriteString("[" + t.Text + "] ")
	}
	return strings.TrimSpace(b.String())
}

// TestScan: words are split the way sh splits them, quotes and
// backslashes removed, and every unquoted operator comes back as itself
// (the two-character ones whole), so a line run without a shell can never
// hold an operator the checker did not see.
func TestScan(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"go test ./...", "[go] [test] [./...]"},
		{" \tgo\r test ", "[go] [test]"},
		{"", ""},
		{`a\ b`, "[a b]"},
		{`a\;b`, "[a;b]"},
		{"a\\\nb", "[ab]"}, // a line continuation joins the word
		{`'a b'c`, "[a bc]"},
		{`''`, "[]"},
		{`""`, "[]"},
		{`x'' y`, "[x] [y]"},
		{`"a \" \\ \$ \` + "`" + ` \n"`, "[a \" \\ $ ` \\n]"},
		{"\"a\\\nb\"", "[ab]"},
		{`"it's"`, "[it's]"},
		{`'say "hi"'`, `[say "hi"]`},
		{`a"b"'c'd`, "[abcd]"},
		{"a;b", "[a] ; [b]"},
		{"a && b || c", "[a] && [b] || [c]"},
		{"a & b", "[a] & [b]"},
		{"a | b |& c", "[a] | [b] |& [c]"},
		{"a > f >> g < h << i", "[a] > [f] >> [g] < [h] << [i]"},
		{"a >&2 <&0 &> f", "[a] >& [2] <& [0] &> [f]"},
		{"(a) `b` $x $(c) ${d} $'e", "( [a] ) ` [b] ` $ [x] $( [c] ) ${ [d}] $' [e]"},
		{"a\nb", "[a] newline [b]"},
		{"a;;b", "[a] ;; [b]"},
		{"a;", "[a] ;"},
		{"&", "&"},
		{"a$", "[a] $"},
	} {
		toks, err := Scan(tc.line)
		if err != nil {
			t.Errorf("%q: %v", tc.line, err)
			continue
		}
		if got := show(toks); got != tc.want {
			t.Errorf("%q: %s, want %s", tc.line, got, tc.want)
		}
	}
}

// TestScanPositions: each token carries the offset it starts at (the
// checker's messages point at it).
func TestScanPositions(t *testing.T) {
	toks, err := Scan(`ab  'c d' && "e"f`)
	if err != nil {
		t.Fatal(err)
	}
	want := []Token{{Text: "ab", Pos: 0}, {Text: "c d", Pos: 4}, {Op: "&&", Pos: 10}, {Text: "ef", Pos: 13}}
	if !reflect.DeepEqual(toks, want) {
		t.Errorf("%+v, want %+v", toks, want)
	}
}

// TestScanQuoteErrors: a quote or escape left open is an error naming it
// and where it starts, never a guess at where the word ends.
func TestScanQuoteErrors(t *testing.T) {
	for _, tc := range []struct {
		line, quote string
		pos         int
		msg         string
	}{
		{`echo 'abc`, "'", 5, "the ' quote at offset 5 is never closed"},
		{`echo "abc`, `"`, 5, `the " quote at offset 5 is never closed`},
		{`echo "abc\"`, `"`, 5, `the " quote at offset 5 is never closed`},
		{`echo "`, `"`, 5, `the " quote at offset 5 is never closed`},
		{`echo \`, `\`, 5, "the line ends with a lone backslash (offset 5)"},
		{`echo "abc\`, `"`, 5, `the " quote at offset 5 is never closed`}, // the backslash is the last byte
		{`'`, "'", 0, "the ' quote at offset 0 is never closed"},
	} {
		_, err := Scan(tc.line)
		qe, ok := err.(*QuoteError)
		if !ok {
			t.Errorf("%q: %v, want a QuoteError", tc.line, err)
			continue
		}
		if qe.Quote != tc.quote || qe.Pos != tc.pos || qe.Error() != tc.msg {
			t.Errorf("%q: %+v %q, want %s at %d: %q", tc.line, *qe, qe.Error(), tc.quote, tc.pos, tc.msg)
		}
	}
}

// TestWords: a plain argv, or an error naming the operator it holds.
func TestWords(t *testing.T) {
	got, err := Words(`git commit -m 'a b'`)
	if err != nil || !reflect.DeepEqual(got, []string{"git", "commit", "-m", "a b"}) {
		t.Errorf("%q %v", got, err)
	}
	if got, err := Words(""); err != nil || len(got) != 0 {
		t.Errorf("empty: %q %v", got, err)
	}
	if _, err := Words("a | b"); err == nil || !strings.Contains(err.Error(), `operator "|"`) {
		t.Errorf("a | b: %v", err)
	}
	if _, err := Words("a 'b"); err == nil {
		t.Errorf("an open quote passed")
	}
}

// TestPatternForms: a settings entry is a string or an object with
// examples; the string form matches an argv prefix (executable by
// basename, case folded), /re/ and /re/i are regexes, and anything else
// about the form is an error.
func TestPatternForms(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		argv    []string
		want    bool
	}{
		{"git push --force", []string{"git", "push", "--force", "origin"}, true},
		{"git push --force", []string{"/usr/bin/GIT", "push", "--force"}, true},
		{"git push --force", []string{"git", "push"}, false},
		{"git push --force", []string{"git", "push", "--forced"}, false},
		{"git push --force", []string{"git", "pull", "--force"}, false},
		{"git push --force", []string{"got", "push", "--force"}, false},
		{"rm", []string{"rm"}, true},
		{"rm", []string{}, false},
		{"/usr/bin/rm -r", []string{"rm", "-r", "x"}, true},
		{"//", []string{"ls"}, true},          // the empty regex matches every argv
		{"//i", []string{"ls"}, true},         // likewise, folding case
		{"/ls/", []string{"LS"}, false},       // a regex is case-sensitive
		{"/ls/i", []string{"LS"}, true},       // unless it ends in /i
		{"/x", []string{"/x"}, true},          // no closing slash: a prefix pattern naming /x
		{"/x", []string{"x"}, true},           // by its basename
		{"/ls/x", []string{"/ls/x"}, true},    // a path, not a regex with flags
		{"/^rm$/", []string{"/bin/rm"}, true}, // tested on the basename form too
		{"/^/bin/rm/", []string{"rm"}, false},
	} {
		m, err := Pattern{Pattern: tc.pattern}.Compile()
		if err != nil {
			t.Errorf("%s: %v", tc.pattern, err)
			continue
		}
		if got := m.Match(tc.argv); got != tc.want {
			t.Errorf("%s %q: match %v, want %v", tc.pattern, tc.argv, got, tc.want)
		}
	}
	for _, bad := range []string{"", "   ", "/a(/", "'", "a | b"} {
		if _, err := (Pattern{Pattern: bad}).Compile(); err == nil {
			t.Errorf("%q compiled", bad)
		}
	}
}

// TestPatternJSON: both settings forms read back as written, an unknown
// key is refused, and an empty list is [] rather than null.
func TestPatternJSON(t *testing.T) {
	var ps Patterns
	in := `["git push --force", {"pattern": "/^npm publish\\b/", "match": ["npm publish"], "noMatch": ["npm test"]}]`
	if err := json.Unmarshal([]byte(in), &ps); err != nil {
		t.Fatal(err)
	}
	want := Patterns{{Pattern: "git push --force"}, {Pattern: `/^npm publish\b/`, Match: []string{"npm publish"}, NoMatch: []string{"npm test"}}}
	if !reflect.DeepEqual(ps, want) {
		t.Fatalf("%+v", ps)
	}
	out, err := json.Marshal(ps)
	if err != nil || string(out) != `["git push --force",{"pattern":"/^npm publish\\b/","match":["npm publish"],"noMatch":["npm test"]}]` {
		t.Errorf("%s %v", out, err)
	}
	if out, _ := json.Marshal(Patterns(nil)); string(out) != "[]" {
		t.Errorf("nil list: %s", out)
	}
	if out, _ := json.Marshal(Pattern{Pattern: "rm", NoMatch: []string{"rmdir"}}); string(out) != `{"pattern":"rm","noMatch":["rmdir"]}` {
		t.Errorf("noMatch only: %s", out)
	}
	for _, bad := range []string{`{"pattern": "rm", "matches": ["rm"]}`, `"unterminated`, `7`} {
		var p Pattern
		if err := json.Unmarshal([]byte(bad), &p); err == nil {
			t.Errorf("%s read as %+v", bad, p)
		}
	}
	// Called directly (as a decoder of another format might), an empty
	// value is an error, not a panic.
	for _, raw := range []string{"", "  "} {
		var p Pattern
		if err := p.UnmarshalJSON([]byte(raw)); err == nil {
			t.Errorf("%q read as %+v", raw, p)
		}
	}
	var p Pattern
	if err := json.Unmarshal([]byte(`  "rm -rf"`), &p); err != nil || p.Pattern != "rm -rf" {
		t.Errorf("a string after spaces: %+v %v", p, err)
	}
}

// TestPatternsValidate: an example that disagrees with its pattern, or
// does not parse, fails settings with the rule's position and text.
func TestPatternsValidate(t *testing.T) {
	good := Patterns{{Pattern: "git push --force", Match: []string{"git push --force x"}, NoMatch: []string{"git push"}}}
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ps   Patterns
		want string
	}{
		{Patterns{{Pattern: "rm"}, {Pattern: ""}}, `rule 2 (""): the pattern is empty`},
		{Patterns{{Pattern: "rm", Match: []string{"rmdir x"}}}, `its match example "rmdir x" does not match`},
		{Patterns{{Pattern: "rm", NoMatch: []string{"rm -r"}}}, `its noMatch example "rm -r" matches`},
		{Patterns{{Pattern: "rm", Match: []string{"rm 'x"}}}, `match example "rm 'x"`},
		{Patterns{{Pattern: "rm", NoMatch: []string{"ls | rm"}}}, `noMatch example "ls | rm"`},
	} {
		if err := tc.ps.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.ps, err, tc.want)
		}
	}
	ms, err := Patterns{{Pattern: "rm"}, {Pattern: "/x/"}}.Compile()
	if err != nil || len(ms) != 2 || ms[0].Source != "rm" || ms[1].Source != "/x/" {
		t.Errorf("%+v %v", ms, err)
	}
	if _, err := (Patterns{{Pattern: "rm"}, {Pattern: "/(/"}}).Compile(); err == nil || !strings.HasPrefix(err.Error(), `rule 2 ("/(/")`) {
		t.Errorf("%v", err)
	}
}

// TestRequiredText: the literal text the prefilter looks for before a
// regex is run is what every match holds: the executable's first word
// for an anchored regex, else the longest space-free piece of its
// literal prefix (the first of equal ones), nothing when there is none.
func TestRequiredText(t *testing.T) {
	for _, tc := range []struct {
		body, need string
		first      bool
	}{
		{`^npm publish\b`, "npm", true},
		{`^ --force`, "--force", false},
		{`^(a|b)`, "", false},
		{`curl .*\|`, "curl", false},
		{`ab cd`, "ab", false},
		{`a bcd ef`, "bcd", false},
		{` --force\b`, "--force", false},
		{`x`, "x", false},
		{`(npm|yarn) publish`, "", false},
		{`^`, "", false},
	} {
		need, first := required(tc.body)
		if need != tc.need || first != tc.first {
			t.Errorf("%q: %q %v, want %q %v", tc.body, need, first, tc.need, tc.first)
		}
	}
	if need, first := required(`^(`); need != "" || first {
		t.Errorf("a body that does not compile: %q %v", need, first)
	}
}

// TestBase: the executable as allow and deny compare it.
func TestBase(t *testing.T) {
	for in, want := range map[string]string{"rm": "rm", "/bin/rm": "rm", "/rm": "rm", "./x/": "x", "a/b/": "b", "": ".", "/": "."} {
		if got := Base(in); got != want {
			t.Errorf("Base(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestMayMatchExecutable: which patterns a command's executable needs
// checked against (the rest cannot refuse it).
func TestMayMatchExecutable(t *testing.T) {
	for _, tc := range []struct {
		pattern, exe string
		want         bool
	}{
		{"rm -rf", "rm", true},
		{"/bin/RM -rf", "rm", true},
		{"rm -rf", "rmdir", false},
		{`/^npm publish\b/`, "npm", true},
		{`/^npm publish\b/`, "npx", false},
		{`/^npm publish\b/`, "npmx", false}, // the word ends at the space
		{`/^np/`, "npm", true},              // a prefix with no space: any executable it starts
		{`/^np/`, "xnp", false},
		{`/^npm\b/`, "npm", true},
		{`/^npm publish\b/i`, "NPM", true}, // folding case: any executable
		{`/^(a|b)/`, "zzz", true},          // no literal prefix
		{`/ --force/`, "git", true},        // not anchored
	} {
		m, err := Pattern{Pattern: tc.pattern}.Compile()
		if err != nil {
			t.Fatal(err)
		}
		if got := m.MayMatchExecutable(tc.exe); got != tc.want {
			t.Errorf("%s %s: %v, want %v", tc.pattern, tc.exe, got, tc.want)
		}
	}
}
