package policy

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/agentic-workspace/aw/engine/workspace"
)

// shellLine checks a line in interpreter "sh". The line is parsed as bash
// (the largest dialect /bin/sh may be) and re-printed; what is checked, and
// what /bin/sh later runs, is that canonical print, parsed again (see
// canonical.go). Every simple command anywhere in it is checked, and
// whatever the walker does not fully understand is refused.
func (c *checker) shellLine(line string) {
	canonical, f, ok := c.canonicalize(line)
	if !ok {
		return
	}
	if len(f.Stmts) == 0 {
		c.refuse(NotAllowed, "", "", "the line holds no command; pass a command to run")
		return
	}
	c.line = canonical
	c.stmts(f.Stmts)
	if !c.refused {
		c.v.Canonical = canonical
	}
}

// parseErr refuses a line the parser rejects.
func (c *checker) parseErr(err error) {
	if syntax.IsIncomplete(err) {
		c.refuse(UnbalancedQuotes, "", "", "a quote, $(, ${, backtick or bracket is never closed (%v); close it", err)
		return
	}
	c.refuse(UnsupportedSyntax, "", "", "the line does not parse as a shell line (%v); write simple commands joined by ;, &&, || or |", err)
}

func (c *checker) unsupported(what, repair string) {
	c.refuse(UnsupportedSyntax, "", "", "%s is not supported in a checked shell line: the policy reads only what it can read with confidence; %s", what, repair)
}

func (c *checker) stmts(list []*syntax.Stmt) {
	for _, s := range list {
		if c.refused {
			return
		}
		c.stmt(s)
	}
}

func (c *checker) stmt(s *syntax.Stmt) {
	if s.Background {
		c.unsupported("background `&`", "start long-running commands with `aw command start` so the workspace owns them")
		return
	}
	if s.Coprocess || s.Disown {
		c.unsupported("a coprocess or disown", "run the command in the foreground or with `aw command start`")
		return
	}
	for _, r := range s.Redirs {
		c.redirect(r)
	}
	switch cmd := s.Cmd.(type) {
	case nil:
	case *syntax.CallExpr:
		c.call(cmd)
	case *syntax.BinaryCmd:
		if cmd.Op == syntax.PipeAll {
			c.unsupported("`|&`", "write `2>&1 |` instead")
			return
		}
		c.stmt(cmd.X)
		c.stmt(cmd.Y)
	case *syntax.Subshell:
		c.stmts(cmd.Stmts)
	case *syntax.Block:
		c.stmts(cmd.Stmts)
	case *syntax.TimeClause:
		if cmd.Stmt != nil {
			c.stmt(cmd.Stmt)
		}
	case *syntax.IfClause, *syntax.CaseClause:
		c.unsupported("a conditional (if/case)", "run the commands separately and decide yourself from their results")
	case *syntax.WhileClause, *syntax.ForClause:
		c.unsupported("a loop (for/while/until)", "run each command separately")
	case *syntax.FuncDecl:
		c.unsupported("a function definition", "run the commands directly")
	case *syntax.ArithmCmd, *syntax.LetClause:
		c.unsupported("arithmetic ((( )), let)", "compute the value yourself and pass it literally")
	case *syntax.TestClause:
		c.unsupported("`[[ … ]]`", "decide the condition yourself, or use `test` with literal arguments")
	case *syntax.DeclClause:
		c.unsupported("a declaration ("+cmd.Variant.Value+")", "set variables only as NAME=value prefixes, or pass values literally")
	case *syntax.CoprocClause:
		c.unsupported("coproc", "run the command with `aw command start`")
	default:
		c.unsupported("this construct", "write simple commands joined by ;, &&, || or |")
	}
}

func (c *checker) call(ce *syntax.CallExpr) {
	exe := ""
	if len(ce.Args) > 0 {
		exe = ce.Args[0].Lit()
	}
	for _, a := range ce.Assigns {
		if c.refused {
			return
		}
		if a.Array != nil || a.Index != nil || a.Append || a.Naked || a.Name == nil {
			c.unsupported("an array or += assignment", "assign plain NAME=value")
			return
		}
		c.assign(a.Name.Value, exe)
		if a.Value != nil {
			c.word(a.Value, false)
		}
	}
	ws := make([]word, 0, len(ce.Args))
	for _, w := range ce.Args {
		if c.refused {
			return
		}
		ws = append(ws, c.word(w, false))
	}
	if !c.refused && len(ws) > 0 {
		c.command(ws, 0)
	}
}

func (c *checker) redirect(r *syntax.Redirect) {
	if c.refused {
		return
	}
	if r.N != nil {
		if _, err := strconv.Atoi(r.N.Value); err != nil {
			c.unsupported("a {name} redirection", "use a plain file descriptor number")
			return
		}
	}
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrInOut:
		c.path(c.word(r.Word, false), workspace.Write, "", "redirection target")
	case syntax.RdrIn:
		c.path(c.word(r.Word, false), workspace.Read, "", "redirection source")
	case syntax.DplIn, syntax.DplOut:
		w := c.word(r.Word, false)
		if _, err := strconv.Atoi(w.text); (err != nil && w.text != "-") || w.dynamic != "" {
			c.unsupported("`"+r.Op.String()+"` with a file ("+w.text+")", "write `> file 2>&1` instead of `>& file`")
		}
	case syntax.Hdoc, syntax.DashHdoc:
		if quotedDelimiter(r.Word) || r.Hdoc == nil {
			return // the body is literal
		}
		c.word(r.Hdoc, true)
	default:
		c.unsupported("the redirection `"+r.Op.String()+"`", "use >, >>, < or 2>&1")
	}
}

func quotedDelimiter(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return true
		case *syntax.Lit:
			if strings.ContainsRune(p.Value, '\\') {
				return true
			}
		}
	}
	return false
}

var braceExpansion = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{[^{}]*(,|\.\.)[^{}]*\}`) })

// word evaluates a word: its value after quote removal and whether (and
// why) it is only known at run time. Substitutions inside are checked as
// commands. body is true for an unquoted here-document body, where globs,
// tildes and braces mean nothing.
func (c *checker) word(w *syntax.Word, body bool) word {
	if len(w.Parts) == 1 && !body {
		// Most words are one plain literal or one quoted string: their
		// value needs no building.
		switch p := w.Parts[0].(type) {
		case *syntax.Lit:
			if !strings.ContainsAny(p.Value, `\*?[~{`) {
				return word{text: p.Value}
			}
		case *syntax.SglQuoted:
			if !p.Dollar {
				return word{text: p.Value}
			}
		}
	}
	var b, skeleton, glob strings.Builder
	dyn := ""
	onlyGlob := true // nothing but a glob makes the word dynamic
	mark := func(why string) {
		if dyn == "" {
			dyn = why
		}
	}
	for i, part := range w.Parts {
		if c.refused {
			break
		}
		switch p := part.(type) {
		case *syntax.Lit:
			if body {
				b.WriteString(p.Value)
				continue
			}
			val, isGlob := unescape(p.Value)
			if isGlob {
				mark("a glob")
			}
			if i == 0 && strings.HasPrefix(p.Value, "~") {
				mark("~ expansion")
				onlyGlob = false
			}
			b.WriteString(val)
			skeleton.WriteString(p.Value)
			glob.WriteString(p.Value) // the shell's backslashes are filepath.Match's
		case *syntax.SglQuoted:
			if p.Dollar {
				c.unsupported("$'…' quoting", "not every /bin/sh reads it the same way; write the characters in plain single quotes (bash reads $'"+p.Value+"' as "+strconv.Quote(decodeANSIC(p.Value))+")")
				continue
			}
			b.WriteString(p.Value)
			skeleton.WriteString("x")
			glob.WriteString(globQuote(p.Value))
		case *syntax.DblQuoted:
			if p.Dollar {
				c.unsupported(`$"…" quoting`, "use plain double quotes")
				continue
			}
			for _, q := range p.Parts {
				if lit, ok := q.(*syntax.Lit); ok {
					b.WriteString(unescapeDouble(lit.Value))
					glob.WriteString(globQuote(unescapeDouble(lit.Value)))
					continue
				}
				if why := c.expansion(q); why != "" {
					mark(why)
					onlyGlob = false
				}
			}
			skeleton.WriteString("x")
		default:
			if why := c.expansion(part); why != "" {
				mark(why)
				onlyGlob = false
			}
			skeleton.WriteString("x")
		}
	}
	if sk := skeleton.String(); !body && !c.refused && strings.IndexByte(sk, '{') >= 0 && braceExpansion().MatchString(sk) {
		c.unsupported("brace expansion", "write every word out literally")
	}
	out := word{text: b.String(), dynamic: dyn}
	if dyn != "" {
		out.text = c.source(w)
		if onlyGlob && !body {
			g := glob.String()
			out.glob = &g
		}
	}
	return out
}

// expansion checks a $…, $(…) or other expanding part and says why it makes
// its word dynamic.
func (c *checker) expansion(part syntax.WordPart) string {
	switch p := part.(type) {
	case *syntax.ParamExp:
		c.param(p)
		if p.Param != nil {
			return "$" + p.Param.Value
		}
		return "a parameter expansion"
	case *syntax.CmdSubst:
		if p.TempFile || p.ReplyVar {
			c.unsupported("${ …;} substitution", "use $(…)")
			return "a substitution"
		}
		c.stmts(p.Stmts)
		return "$(…)"
	case *syntax.ArithmExp:
		c.unsupported("arithmetic expansion ($(( )), $[ ])", "compute the value yourself and pass it literally")
	case *syntax.ProcSubst:
		c.stmts(p.Stmts)
		c.unsupported("process substitution (<( ), >( ))", "write the output to a file inside the workspace first")
	case *syntax.ExtGlob:
		c.unsupported("an extended glob", "list the files literally")
	default:
		c.unsupported("this word", "write it literally")
	}
	return "an expansion"
}

// param allows ${name}, ${#name}, ${name:-word}, ${name-word} and the
// %, %%, #, ## trims; every other ${…} form is refused.
func (c *checker) param(p *syntax.ParamExp) {
	if p.Excl || p.Width || p.IsSet || p.Index != nil || p.Slice != nil || p.Repl != nil || p.Names != 0 ||
		p.Flags != nil || p.NestedParam != nil || len(p.Modifiers) > 0 || p.Param == nil ||
		p.Split != syntax.OptUnset || p.GlobSubst != syntax.OptUnset || p.RcExpand != syntax.OptUnset {
		c.unsupported("this ${…} form", "only ${name}, ${#name}, ${name:-word} and ${name%word}-style trims are read; pass the value literally")
		return
	}
	if p.Exp == nil {
		return
	}
	if p.Length {
		c.unsupported("this ${…} form", "pass the value literally")
		return
	}
	switch p.Exp.Op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.RemSmallSuffix, syntax.RemLargeSuffix, syntax.RemSmallPrefix, syntax.RemLargePrefix:
		if p.Exp.Word != nil {
			c.word(p.Exp.Word, true)
		}
	default:
		c.unsupported("${name"+p.Exp.Op.String()+"…}", "only ${name:-word} and ${name%word}-style trims are read; pass the value literally")
	}
}

// source is a word as written in the line.
func (c *checker) source(w *syntax.Word) string {
	start, end := int(w.Pos().Offset()), int(w.End().Offset())
	if start >= 0 && end <= len(c.line) && start <= end {
		return c.line[start:end]
	}
	return "?"
}

// unescape removes backslashes from an unquoted literal and reports an
// unescaped glob character.
func unescape(s string) (string, bool) {
	if !strings.ContainsAny(s, `\*?[`) {
		return s, false
	}
	var b strings.Builder
	glob := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch == '\\' && i+1 < len(s) {
			i++
			b.WriteByte(s[i])
			continue
		}
		if ch == '*' || ch == '?' || ch == '[' {
			glob = true
		}
		b.WriteByte(ch)
	}
	return b.String(), glob
}

func unescapeDouble(s string) string {
	if !strings.ContainsRune(s, '\\') {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] != '\n' {
				b.WriteByte(s[i])
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// decodeANSIC decodes the body of $'…' as bash does, so the refusal can
// show which characters to write in plain quotes.
func decodeANSIC(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case 'x':
			j := i + 1
			for j < len(s) && j < i+3 && isHex(s[j]) {
				j++
			}
			if n, err := strconv.ParseUint(s[i+1:j], 16, 8); err == nil {
				b.WriteByte(byte(n))
				i = j - 1
			} else {
				b.WriteString(`\x`)
			}
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			n, _ := strconv.ParseUint(s[i:j], 8, 16)
			b.WriteByte(byte(n))
			i = j - 1
		case 'u', 'U':
			max := 4
			if s[i] == 'U' {
				max = 8
			}
			j := i + 1
			for j < len(s) && j < i+1+max && isHex(s[j]) {
				j++
			}
			if n, err := strconv.ParseUint(s[i+1:j], 16, 32); err == nil {
				b.WriteRune(rune(n))
				i = j - 1
			}
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func isHex(ch byte) bool {
	return ch >= '0' && ch <= '9' || ch >= 'a' && ch <= 'f' || ch >= 'A' && ch <= 'F'
}

// globQuote escapes the pattern characters of quoted text.
func globQuote(s string) string {
	if !strings.ContainsAny(s, `*?[\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(`*?[\`, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
