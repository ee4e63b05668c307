package policy

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// The shell runs what the checker read. A line in interpreter "sh" is
// parsed as bash and printed again with mvdan.cc/sh's printer; that
// canonical text is parsed again, checked, and is the only text /bin/sh
// ever receives (Verdict.Canonical). The re-parse must print back to the
// same text both as bash and as POSIX sh, so the two dialects /bin/sh may
// be read the canonical line alike as far as the parser can tell (a line
// of plain words and operators, which both dialects read alike, skips the
// POSIX re-parse: see posixPlain).
//
// What the parser and a real shell (dash, bash) can read differently is
// refused before that, as families rather than examples:
//
//   - characters a shell and a human read differently: control characters
//     (\r, \f, \v, ESC, DEL, C1), invalid UTF-8, Unicode spaces, format
//     characters (bidirectional overrides, zero-width), line separators, and
//     unquoted punctuation look-alikes of operators and quotes;
//   - multibyte text the shell may decode differently: non-ASCII text when
//     the spawned locale is neither C nor UTF-8, and a standalone LANG=
//     or LC_*= assignment (bash parses the lines after it in that locale);
//   - line continuations the parser does not follow as sh does: a comment
//     ending in a backslash, and any continuation in a line that holds a
//     here-document (outside quoted bodies, where backslashes are text);
//   - comments inside $( ) or backticks;
//   - here-documents beyond `<<WORD`, `<<'WORD'`, `<<"WORD"` and `<<\WORD`
//     with a plain name: `<<-` (tab stripping, re-indented by the printer), delimiters
//     with expansions, escapes or mixed quoting, a here-document inside a
//     $( ) or backtick substitution, a substitution in a body that spans
//     lines;
//   - backtick substitutions holding a backslash or another backtick
//     (escaping and nesting rules differ between shells and from $( ));
//   - quotes or backslashes in a ${…} operand (inside double quotes dash
//     takes single quotes there literally: "${v:-'$(cmd)'}" runs cmd);
//   - file descriptors above 9 (dash reads `10>f` as the word 10 and `>f`);
//   - builtins that change how later text is read or looked up (alias,
//     shopt, enable, hash, set with options other than -e, -u, -x, -v,
//     -o pipefail and their + forms);
//   - everything the walker refuses already: bash-only syntax ($'…', [[ ]],
//     brace expansion, arithmetic, extended globs, process substitution,
//     here-strings, &>, |&, functions, coprocesses, arrays).

// canonicalize runs the lexical and source checks on line, prints it and
// returns the canonical text with its own parse (the tree to check).
func (c *checker) canonicalize(line string) (string, *syntax.File, bool) {
	if what, repair := oddCharacter(line); what != "" {
		c.unsupported(what, repair)
		return "", nil, false
	}
	if what, repair := multibyteLocale(c, line); what != "" {
		c.unsupported(what, repair)
		return "", nil, false
	}
	comments := strings.IndexByte(line, '#') >= 0
	src, err := parse(syntax.LangBash, line, comments)
	if err != nil {
		c.parseErr(err)
		return "", nil, false
	}
	if mayDiffer(line) {
		if what, repair := sourceFamilies(src, line); what != "" {
			c.unsupported(what, repair)
			return "", nil, false
		}
	}
	if comments {
		dropComments(src)
	}
	canonical, err := printLine(src)
	if err != nil {
		c.unsupported("a line the printer cannot re-print", "write simple commands joined by ;, &&, || or |")
		return "", nil, false
	}
	f := src // the same text parses to the same tree
	if canonical != line {
		if f, err = parse(syntax.LangBash, canonical, false); err != nil {
			c.unsupported(fmt.Sprintf("a line whose re-print does not parse again (%v)", err), "write simple commands joined by ;, &&, || or |")
			return "", nil, false
		}
		if again, err := printLine(f); err != nil || again != canonical {
			c.unsupported("a line that reads differently once re-printed", "write simple commands joined by ;, &&, || or |, without comments or continuations")
			return "", nil, false
		}
	}
	if posixPlain(canonical) {
		return canonical, f, true
	}
	posix, err := parse(syntax.LangPOSIX, canonical, false)
	if err == nil {
		var again string
		if again, err = printLine(posix); err == nil && again != canonical {
			err = fmt.Errorf("bash and POSIX sh read it differently")
		}
	}
	if err != nil {
		c.unsupported(fmt.Sprintf("syntax POSIX sh does not read as bash does (%v)", err), "write portable sh: simple commands joined by ;, &&, || or |")
		return "", nil, false
	}
	return canonical, f, true
}

// Parsers and the printer are reused across checks: each carries buffers
// a 500-command line would otherwise allocate again (both reset
// themselves on every call).
var (
	parsers = [2]sync.Pool{
		{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }},
		{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangPOSIX)) }},
	}
	printers = sync.Pool{New: func() any { return syntax.NewPrinter(syntax.SpaceRedirects(true)) }}
)

// parse reads line in lang (bash or POSIX sh), keeping comments when asked.
func parse(lang syntax.LangVariant, line string, comments bool) (*syntax.File, error) {
	pool := &parsers[0]
	if lang == syntax.LangPOSIX {
		pool = &parsers[1]
	}
	p := pool.Get().(*syntax.Parser)
	defer pool.Put(p)
	syntax.KeepComments(comments)(p)
	return p.Parse(strings.NewReader(line), "")
}

// printLine is the canonical print: mvdan.cc/sh's printer with `> file`
// spacing (the way people write it, so an ordinary line prints as itself).
func printLine(f *syntax.File) (string, error) {
	var b strings.Builder
	if f.End().IsValid() {
		b.Grow(int(f.End().Offset()) + 64) // about the source's length
	}
	p := printers.Get().(*syntax.Printer)
	defer printers.Put(p)
	if err := p.Print(&b, f); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// bashOnlyWords are the words mvdan.cc/sh's bash parser reads as syntax
// (a clause, a declaration, a test) where its POSIX parser reads a plain
// command name.
var bashOnlyWords = setOf("[[", "]]", "let", "function", "declare", "local", "export", "readonly", "typeset", "nameref", "time", "coproc", "select")

// posixPlain reports a line made only of what mvdan.cc/sh's bash and
// POSIX parsers read alike: words of letters, digits, _./,:=%@+-*? and
// quoted text without $, ` or \ (single quotes hold anything), joined by
// blanks, newlines, ;, &&, |, || and the redirections >, >>, >|, <, <>,
// >& and <&, with no word the bash parser takes as syntax (time, let,
// declare, …) and no +=. Every construct whose reading differs between
// the two dialects needs a character outside that set ($, (, {, [, !,
// &>, |&, ;&, <<), so for such a line the POSIX re-parse is skipped (it
// is a third of a long ordinary line's check); TestPosixPlainParsesAlike
// holds the claim against the parser.
func posixPlain(line string) bool {
	start := 0 // of the current unquoted word
	word := func(end int) bool {
		w := line[start:end]
		return !bashOnlyWords[w] && !strings.Contains(w, "+=")
	}
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case ch >= 'a' && ch <= 'z', ch >= 'A' && ch <= 'Z', ch >= '0' && ch <= '9', strings.IndexByte("_./,:=%@+-*?", ch) >= 0:
			continue
		case ch == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return false
			}
			i += 1 + end
			continue
		case ch == '"':
			end := strings.IndexByte(line[i+1:], '"')
			if end < 0 || strings.ContainsAny(line[i+1:i+1+end], "$`\\") {
				return false
			}
			i += 1 + end
			continue
		}
		// ch ends a word: a blank or an operator
		if !word(i) {
			return false
		}
		var next byte
		if i+1 < len(line) {
			next = line[i+1]
		}
		switch ch {
		case ' ', '\t', '\n':
		case ';':
			if next == ';' || next == '&' {
				return false
			}
		case '&':
			if next != '&' || i+2 < len(line) && line[i+2] == '&' {
				return false
			}
			i++
		case '|':
			if next == '&' {
				return false
			}
			if next == '|' {
				i++
			}
		case '<':
			if next == '<' {
				return false
			}
			if next == '>' || next == '&' {
				i++
			}
		case '>':
			if next == '>' || next == '|' || next == '&' {
				i++
			}
			if i+1 < len(line) && (line[i+1] == '&' || line[i+1] == '>' || line[i+1] == '|') {
				return false // >>&, >&>, >&& and the like: leave them to the parsers
			}
		default:
			return false
		}
		start = i + 1
	}
	return word(len(line))
}

// oddCharacter finds a character a shell and a reader (human or parser)
// may take differently.
func oddCharacter(line string) (what, repair string) {
	if !utf8.ValidString(line) {
		return "a line that is not valid UTF-8", "write the line in UTF-8; pass binary data through a file"
	}
	for _, r := range line {
		switch {
		case r == '\t' || r == '\n' || r >= 0x20 && r < 0x7f:
		case r == '\r':
			return `a carriage return (\r)`, "end lines with \\n only; no shell reads \\r as a line end"
		case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f:
			return fmt.Sprintf("the control character U+%04X", r), "write the text without control characters; put such bytes in a file"
		case r != ' ' && unicode.Is(unicode.Zs, r), unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp):
			return fmt.Sprintf("the invisible or space-like character U+%04X", r), "use plain ASCII spaces and no invisible characters; the shell reads this one as part of a word"
		}
	}
	return "", ""
}

// mayDiffer is false when line holds none of the characters every family
// sourceFamilies looks for needs: #, `, ${, <<, LANG= or LC_, a multi-digit descriptor
// before < or >, a non-ASCII character, or a line continuation (which can
// split any of them). It spares long ordinary lines
// the walk.
func mayDiffer(line string) bool {
	if strings.Contains(line, "LANG=") || strings.Contains(line, "LC_") {
		return true
	}
	for i := 0; i < len(line); i++ {
		switch ch := line[i]; {
		case ch == '#' || ch == '`' || ch >= 0x80, ch == '$' && i+1 < len(line) && line[i+1] == '{':
			return true
		case ch == '<' && i+1 < len(line) && line[i+1] == '<', ch == '\\' && i+1 < len(line) && line[i+1] == '\n':
			return true
		case (ch == '<' || ch == '>') && i >= 2 && isDigit(line[i-1]) && isDigit(line[i-2]):
			return true
		}
	}
	return false
}

func isDigit(ch byte) bool { return ch >= '0' && ch <= '9' }

// multibyteLocale refuses non-ASCII text when the spawned shell's
// character locale is neither C nor UTF-8: bash reads multibyte characters
// by the locale, and in Big5, GBK or Shift-JIS a character's second byte
// can be a backslash or a pipe the parser saw as an operator.
func multibyteLocale(c *checker, line string) (what, repair string) {
	ascii := true
	for i := 0; i < len(line) && ascii; i++ {
		ascii = line[i] < 0x80
	}
	if ascii {
		return "", ""
	}
	vars := map[string]string{}
	for _, kv := range Env(c.ws) {
		if k, v, ok := strings.Cut(kv, "="); ok && (k == "LC_ALL" || k == "LC_CTYPE" || k == "LANG") {
			vars[k] = v
		}
	}
	loc := vars["LC_ALL"]
	if loc == "" {
		loc = vars["LC_CTYPE"]
	}
	if loc == "" {
		loc = vars["LANG"]
	}
	low := strings.ToLower(loc)
	if loc == "" || loc == "C" || loc == "POSIX" || strings.Contains(low, "utf-8") || strings.Contains(low, "utf8") {
		return "", ""
	}
	return "non-ASCII text under the locale " + loc, "write the line in ASCII, or have a human set a UTF-8 locale (commands.env LANG=C.UTF-8)"
}

// lookAlike reports a punctuation character that looks like a shell
// operator or quote but is an ordinary word character to every shell.
func lookAlike(r rune) bool {
	switch {
	case r < 0x80:
		return false
	case r >= 0xff01 && r <= 0xff65, // fullwidth ASCII and halfwidth punctuation
		r >= 0xfe10 && r <= 0xfe19, r >= 0xfe30 && r <= 0xfe6f, // vertical and small forms
		r >= 0x2010 && r <= 0x205e,                           // dashes, quotes, primes, leaders, fraction slash
		r >= 0x2212 && r <= 0x2219, r == 0x2223, r == 0x2236, // minus, division slash, asterisk operator, divides, ratio
		r == 0x2329 || r == 0x232a || r == 0x3008 || r == 0x3009 || r == 0x27e8 || r == 0x27e9, // angle brackets
		r >= 0x2768 && r <= 0x2775, // ornamental brackets
		r == 0x00b4 || r >= 0x02b9 && r <= 0x02bc || r == 0x02c8 || r == 0x02cb, // acute, modifier primes and apostrophes
		r == 0x037e || r == 0x0589 || r == 0x05c3 || r == 0xa789,                // ; and : look-alikes
		r == 0x01c0 || r == 0x01c3,                                              // | and ! look-alikes
		r == 0x214b:                                                             // turned ampersand
		return true
	}
	return false
}

// sourceFamilies walks the line as written and names the first construct
// where the parser's reading and a shell's can differ.
func sourceFamilies(f *syntax.File, line string) (what, repair string) {
	src := func(n syntax.Node) string {
		s, e := int(n.Pos().Offset()), int(n.End().Offset())
		if s < 0 || e > len(line) || s > e {
			return ""
		}
		return line[s:e]
	}
	var stack []syntax.Node
	substDepth := 0
	bodies := map[*syntax.Word]bool{}
	bodyStart := map[int]int{}
	heredocs := false    // a here-document whose body sh may read with continuations
	var literal [][2]int // quoted bodies: backslashes there are text
	syntax.Walk(f, func(n syntax.Node) bool {
		if what != "" {
			return false
		}
		if n == nil {
			if top := stack[len(stack)-1]; isSubst(top) {
				substDepth--
			}
			stack = stack[:len(stack)-1]
			return true
		}
		switch n := n.(type) {
		case *syntax.Comment:
			if strings.HasSuffix(n.Text, `\`) || strings.Contains(n.Text, "\\\n") { // the parser keeps a continued comment going
				what, repair = "a comment ending in a backslash", "drop the comment or its trailing backslash (shells differ on whether it continues the line)"
			} else if substDepth > 0 {
				what, repair = "a comment inside a substitution", "drop the comment (shells differ on where it ends inside $( ) or backticks)"
			}
		case *syntax.CmdSubst:
			if n.Backquotes && (strings.ContainsRune(src(n), '\\') || strings.Count(src(n), "`") > 2) {
				// sh ends a backtick substitution at the next unescaped
				// backtick, whatever quotes or $( ) lie between.
				what, repair = "a backslash or a backtick inside a backtick substitution", "write $(…) instead of backticks"
			}
		case *syntax.CallExpr:
			if len(n.Args) == 0 {
				for _, a := range n.Assigns {
					if a.Name != nil && (a.Name.Value == "LANG" || strings.HasPrefix(a.Name.Value, "LC_")) {
						what, repair = "assigning "+a.Name.Value+" for the rest of the line", "bash reads the lines after it in the new locale; set it for one command (LANG=C cmd), or have a human set commands.env"
					}
				}
			}
		case *syntax.ParamExp:
			if n.Exp != nil && n.Exp.Word != nil && quotesInside(n.Exp.Word) {
				what, repair = "quotes or backslashes inside a ${…} operand", "shells disagree on whether they quote there; pass the value literally"
			}
		case *syntax.Redirect:
			if n.N != nil && len(n.N.Value) > 1 {
				what, repair = "the file descriptor "+n.N.Value+" (above 9)", "use descriptors 0 to 9; POSIX sh reads "+n.N.Value+" as a word"
			} else if n.Op == syntax.Hdoc || n.Op == syntax.DashHdoc {
				what, repair = hereDoc(n, substDepth > 0, line, bodyStart)
				if n.Hdoc != nil {
					bodies[n.Hdoc] = true
				}
				if _, quoted, _ := heredocDelimiter(n.Word); quoted && n.Hdoc != nil {
					literal = append(literal, [2]int{int(n.Hdoc.Pos().Offset()), int(n.Hdoc.End().Offset())})
				} else {
					heredocs = true
				}
			}
		case *syntax.Word:
			if !bodies[n] {
				for _, p := range n.Parts {
					if lit, ok := p.(*syntax.Lit); ok {
						for _, r := range lit.Value {
							if lookAlike(r) {
								what, repair = fmt.Sprintf("the unquoted character %q (U+%04X), which looks like shell punctuation but is part of a word", r, r), "use the ASCII character, or quote the text if it is meant literally"
								break
							}
						}
					}
				}
			}
		}
		if what != "" {
			return false
		}
		stack = append(stack, n)
		if isSubst(n) {
			substDepth++
		}
		return true
	})
	if heredocs || len(literal) > 0 { // the continuation is the cause of any other finding here
		// A continuation moves where sh starts, ends and matches a body
		// (and the operator itself); outside quoted bodies, none is read.
		sort.Slice(literal, func(i, j int) bool { return literal[i][0] < literal[j][0] })
		var rest strings.Builder
		last := 0
		for _, r := range literal {
			if r[0] < last {
				continue
			}
			rest.WriteString(line[last:r[0]])
			rest.WriteByte('x')
			last = r[1]
		}
		rest.WriteString(line[last:])
		if continues(rest.String()) {
			what, repair = "a line continuation (a line ending in a backslash) in a line with a here-document, outside a quoted body", "join the lines yourself, or quote the delimiter (`<<'EOF'`) to keep backslashes in the body literal"
		}
	}
	return what, repair
}

// quotesInside reports a quote or backslash in a ${…} operand: inside
// double quotes dash and bash in POSIX mode take single quotes there
// literally ("${v:-'$(cmd)'}" runs cmd) while the parser reads them as
// quotes.
func quotesInside(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return true
		case *syntax.Lit:
			if strings.ContainsAny(p.Value, `\'"`) {
				return true
			}
		}
	}
	return false
}

func isSubst(n syntax.Node) bool {
	_, ok := n.(*syntax.CmdSubst)
	return ok
}

// hereDoc accepts `<<WORD`, `<<'WORD'`, `<<"WORD"` and `<<\WORD` with a
// plain name, outside substitutions, whose body starts where sh starts it:
// on the line after the operator's (after the previous body of that line),
// and, when unquoted, holds no substitution spanning lines. (Continuations
// are refused for the whole line by sourceFamilies.)
// next maps the newline ending an operator's line to where its next body
// must start.
func hereDoc(r *syntax.Redirect, inSubst bool, line string, next map[int]int) (what, repair string) {
	src := func(n syntax.Node) string { return line[n.Pos().Offset():n.End().Offset()] }
	const plain = "write the here-document as `<<EOF` or `<<'EOF'` at the top level of the line"
	if r.Op == syntax.DashHdoc {
		return "`<<-` (tab-stripping here-document)", "use `<<` with an unindented body"
	}
	if inSubst {
		return "a here-document inside a substitution", "write the text to a file first, or " + plain
	}
	name, quoted, ok := heredocDelimiter(r.Word)
	if !ok {
		return "the here-document delimiter " + src(r.Word), "use a plain name such as EOF, optionally in single quotes"
	}
	after := int(r.Word.End().Offset())
	nl := strings.IndexByte(line[after:], '\n')
	if nl < 0 {
		return "a here-document without a body", plain
	}
	nl += after
	start, seen := next[nl]
	if !seen {
		start = nl + 1
	}
	end := start + len(name) // the delimiter line of an empty body
	if r.Hdoc != nil {
		if int(r.Hdoc.Pos().Offset()) != start {
			return "a here-document whose body does not start on the line after its operator", "end the line right after the commands that read here-documents (no ( or { left open on it), then write the bodies"
		}
		end = int(r.Hdoc.End().Offset())
	} else if start > len(line) || !strings.HasPrefix(line[start:], name) || end < len(line) && line[end] != '\n' {
		return "a here-document whose body does not start on the line after its operator", "end the line right after the commands that read here-documents, then write the bodies"
	}
	next[nl] = end + 1
	if quoted || r.Hdoc == nil {
		return "", ""
	}
	for _, p := range r.Hdoc.Parts {
		if _, lit := p.(*syntax.Lit); !lit && strings.ContainsRune(src(p), '\n') {
			return "a substitution spanning lines inside a here-document body", "keep each $(…) or ${…} in a body on one line, or quote the delimiter"
		}
	}
	return "", ""
}

// continues reports a line continuation: a newline after an odd number
// of backslashes (an even number is escaped backslashes). Inside single
// quotes it is literal; counting it there only refuses more.
func continues(s string) bool {
	for i := strings.IndexByte(s, '\n'); i >= 0; {
		n := 0
		for n < i && s[i-1-n] == '\\' {
			n++
		}
		if n%2 == 1 {
			return true
		}
		next := strings.IndexByte(s[i+1:], '\n')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return false
}

// heredocDelimiter reads a delimiter of one plain name, bare, wholly in
// single or double quotes, or after one backslash.
func heredocDelimiter(w *syntax.Word) (name string, quoted, ok bool) {
	if w == nil || len(w.Parts) != 1 {
		return "", false, false
	}
	switch p := w.Parts[0].(type) {
	case *syntax.Lit:
		name = p.Value
		if rest, ok := strings.CutPrefix(name, `\`); ok {
			name, quoted = rest, true // <<\EOF
		}
	case *syntax.SglQuoted:
		if p.Dollar {
			return "", false, false
		}
		name, quoted = p.Value, true
	case *syntax.DblQuoted:
		if p.Dollar || len(p.Parts) != 1 {
			return "", false, false
		}
		lit, isLit := p.Parts[0].(*syntax.Lit)
		if !isLit {
			return "", false, false
		}
		name, quoted = lit.Value, true
	default:
		return "", false, false
	}
	if name == "" {
		return "", false, false
	}
	for i, r := range name {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return "", false, false
		}
	}
	return name, quoted, true
}

// dropComments removes comments so the canonical line holds none: what
// runs is only what was checked.
func dropComments(f *syntax.File) {
	f.Last = nil
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			n.Comments = nil
		case *syntax.Subshell:
			n.Last = nil
		case *syntax.Block:
			n.Last = nil
		case *syntax.CmdSubst:
			n.Last = nil
		}
		return true
	})
}

// shellBuiltin refuses, in interpreter "sh", builtins that change how the
// rest of the line is read or how later command names are looked up.
func (c *checker) shellBuiltin(name string, args []word) {
	switch name {
	case "alias", "unalias", "shopt", "enable", "hash", "bind", "set":
	default:
		return
	}
	if name == "set" && safeSetArgs(args) {
		return
	}
	c.refuse(UnsupportedSyntax, name, "", "the shell builtin %s is refused in a checked line: it can change how the rest of the line is read or which program a name runs; leave shell options at their defaults (set -e, -u, -x, -v and -o pipefail are fine)", name)
}

func safeSetArgs(args []word) bool {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.dynamic != "" {
			return false
		}
		switch a.text {
		case "-e", "+e", "-u", "+u", "-x", "+x", "-v", "+v", "-eu", "-eux", "-ex", "-ux":
		case "-o", "+o":
			if i+1 >= len(args) || args[i+1].dynamic != "" {
				return false
			}
			switch args[i+1].text {
			case "pipefail", "errexit", "nounset", "xtrace", "verbose":
				i++
			default:
				return false
			}
		default:
			return false
		}
	}
	return len(args) > 0
}
