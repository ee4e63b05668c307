package semantic

import (
	"bytes"
	"path"
	"strings"
)

// A chunk is the unit of search: one declaration (a function, method, type
// or group of constants) where the language is known, else a window of
// lines. Line numbers are 1-based and inclusive; doc and body are byte
// ranges of the file's content.
type chunk struct {
	start, end int
	symbol     string
	doc        [2]int // the comment above the declaration
	body       [2]int // the declaration itself (and, for windows, everything)
}

// Chunks longer than maxChunkLines are cut into windows of windowLines, so
// a snippet points near what matched and one huge table does not drown a
// file's other declarations.
const (
	maxChunkLines = 200
	windowLines   = 60
)

// languages are the values of --lang; a file's language follows from its
// extension. The order is part of the index format.
var languages = []struct {
	name string
	exts []string
}{
	{"text", nil},
	{"go", []string{"go"}},
	{"python", []string{"py", "pyi"}},
	{"javascript", []string{"js", "mjs", "cjs", "jsx"}},
	{"typescript", []string{"ts", "tsx", "mts", "cts"}},
	{"c", []string{"c", "h"}},
	{"cpp", []string{"cc", "cpp", "cxx", "hpp", "hh"}},
	{"rust", []string{"rs"}},
	{"java", []string{"java"}},
	{"shell", []string{"sh", "bash", "zsh"}},
	{"assembly", []string{"s", "asm"}},
	{"markdown", []string{"md", "markdown"}},
	{"html", []string{"html", "htm"}},
	{"css", []string{"css"}},
	{"json", []string{"json"}},
	{"yaml", []string{"yaml", "yml"}},
	{"ruby", []string{"rb"}},
}

const (
	langText = iota
	langGo
	langPython
	langJS
	langTS
)

// langOf is the language index of a path.
func langOf(rel string) uint8 {
	ext := strings.ToLower(strings.TrimPrefix(path.Ext(rel), "."))
	if ext == "" {
		return langText
	}
	for i, l := range languages {
		for _, e := range l.exts {
			if e == ext {
				return uint8(i)
			}
		}
	}
	return langText
}

// langByName resolves --lang: a language name or one of its extensions.
func langByName(s string) (uint8, bool) {
	s = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(s), "."))
	for i, l := range languages {
		if l.name == s {
			return uint8(i), true
		}
		for _, e := range l.exts {
			if e == s {
				return uint8(i), true
			}
		}
	}
	switch s {
	case "golang":
		return langGo, true
	case "js":
		return langJS, true
	}
	return 0, false
}

func languageNames() []string {
	var out []string
	for _, l := range languages {
		out = append(out, l.name)
	}
	return out
}

// lines indexes the starts of the lines of content.
func lineStarts(content []byte) []int {
	starts := make([]int, 1, len(content)/32+1)
	for i, c := range content {
		if c == '\n' && i+1 < len(content) {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// chunkFile splits content by its language.
func chunkFile(lang uint8, content []byte) []chunk {
	starts := lineStarts(content)
	var decls []decl
	switch lang {
	case langGo:
		decls = goDecls(content, starts)
	case langPython:
		decls = pythonDecls(content, starts)
	case langJS, langTS:
		decls = scriptDecls(content, starts)
	}
	return fromDecls(decls, content, starts)
}

// decl is where a declaration starts: its first line (0-based), the first
// line of the comment above it, and its name.
type decl struct {
	line, docLine int
	symbol        string
}

// fromDecls turns declaration starts into chunks that cover the file: the
// lines before the first declaration (package clause, imports, file
// comment) form a chunk of their own; without declarations the file is
// cut into windows.
func fromDecls(decls []decl, content []byte, starts []int) []chunk {
	nLines := len(starts)
	if len(content) == 0 {
		return nil
	}
	var out []chunk
	add := func(from, to int, symbol string, docFrom int) { // 0-based lines [from, to)
		for to > from && blankLine(content, starts, to-1) {
			to--
		}
		if to <= from {
			return
		}
		if to-from > maxChunkLines {
			for w := from; w < to; w += windowLines {
				e := min(w+windowLines, to)
				c := chunk{start: w + 1, end: e, symbol: symbol, body: [2]int{starts[w], lineEnd(content, starts, e-1)}}
				if w == from && docFrom < from {
					c.doc = [2]int{starts[docFrom], starts[from]}
					c.start = docFrom + 1
				}
				out = append(out, c)
			}
			return
		}
		c := chunk{start: from + 1, end: to, symbol: symbol, body: [2]int{starts[from], lineEnd(content, starts, to-1)}}
		if docFrom < from {
			c.doc = [2]int{starts[docFrom], starts[from]}
			c.start = docFrom + 1
		}
		out = append(out, c)
	}
	if len(decls) == 0 {
		add(0, nLines, "", 0)
		return out
	}
	if decls[0].docLine > 0 {
		add(0, decls[0].docLine, "", 0)
	}
	for i, d := range decls {
		next := nLines
		if i+1 < len(decls) {
			next = decls[i+1].docLine
		}
		add(d.line, next, d.symbol, d.docLine)
	}
	return out
}

func lineEnd(content []byte, starts []int, line int) int {
	if line+1 < len(starts) {
		return starts[line+1]
	}
	return len(content)
}

func lineAt(content []byte, starts []int, line int) []byte {
	return content[starts[line]:lineEnd(content, starts, line)]
}

func blankLine(content []byte, starts []int, line int) bool {
	return len(bytes.TrimSpace(lineAt(content, starts, line))) == 0
}

// docAbove is the first line of the comment block that ends right above
// line (line itself when there is none).
func docAbove(content []byte, starts []int, line int, prefixes ...string) int {
	d := line
	for d > 0 {
		t := bytes.TrimSpace(lineAt(content, starts, d-1))
		ok := false
		for _, p := range prefixes {
			if bytes.HasPrefix(t, []byte(p)) {
				ok = true
				break
			}
		}
		if !ok {
			break
		}
		d--
	}
	return d
}

// goDecls finds Go's top-level declarations with a lexical scan that
// tracks strings, runes, comments and nesting, so a brace inside a string
// or a func literal never starts one. (A full go/parser pass costs several
// times more over a large tree and gives nothing more to chunking.)
func goDecls(content []byte, starts []int) []decl {
	var out []decl
	depth := 0
	line := 0
	i := 0
	n := len(content)
	atLineStart := true
	for i < n {
		c := content[i]
		if atLineStart && depth == 0 {
			atLineStart = false
			if sym, ok := goDeclLine(content, starts, line); ok {
				out = append(out, decl{line: line, docLine: docAbove(content, starts, line, "//"), symbol: sym})
			}
		}
		switch c {
		case '\n':
			line++
			atLineStart = true
			i++
		case '/':
			if i+1 < n && content[i+1] == '/' {
				for i < n && content[i] != '\n' {
					i++
				}
			} else if i+1 < n && content[i+1] == '*' {
				i += 2
				for i < n && !(content[i] == '*' && i+1 < n && content[i+1] == '/') {
					if content[i] == '\n' {
						line++
					}
					i++
				}
				i += 2
			} else {
				i++
			}
		case '"', '\'':
			i++
			for i < n && content[i] != c && content[i] != '\n' {
				if content[i] == '\\' {
					i++
				}
				i++
			}
			i++
		case '`':
			i++
			for i < n && content[i] != '`' {
				if content[i] == '\n' {
					line++
				}
				i++
			}
			i++
		case '{', '(', '[':
			depth++
			i++
		case '}', ')', ']':
			if depth > 0 {
				depth--
			}
			i++
		default:
			i++
		}
	}
	return out
}

// goDeclLine reports whether a line at nesting depth 0 starts a
// declaration, and its name: "func (r *Reader) Read(" is Reader.Read.
func goDeclLine(content []byte, starts []int, line int) (string, bool) {
	if line >= len(starts) {
		return "", false
	}
	l := lineAt(content, starts, line)
	switch {
	case bytes.HasPrefix(l, []byte("func ")):
		rest := bytes.TrimSpace(l[5:])
		recv := ""
		if len(rest) > 0 && rest[0] == '(' {
			end := bytes.IndexByte(rest, ')')
			if end < 0 {
				return "", true
			}
			fields := bytes.Fields(rest[1:end])
			if len(fields) > 0 {
				r := fields[len(fields)-1]
				r = bytes.TrimLeft(r, "*")
				if k := bytes.IndexByte(r, '['); k >= 0 {
					r = r[:k]
				}
				recv = string(r)
			}
			rest = bytes.TrimSpace(rest[end+1:])
		}
		name := identPrefix(rest)
		if recv != "" {
			return recv + "." + name, true
		}
		return name, true
	case bytes.HasPrefix(l, []byte("type ")), bytes.HasPrefix(l, []byte("var ")), bytes.HasPrefix(l, []byte("const ")):
		rest := bytes.TrimSpace(l[bytes.IndexByte(l, ' ')+1:])
		if len(rest) > 0 && rest[0] == '(' {
			// A group: named by its first member.
			for k := line + 1; k < len(starts) && k < line+20; k++ {
				t := bytes.TrimSpace(lineAt(content, starts, k))
				if len(t) == 0 || bytes.HasPrefix(t, []byte("//")) {
					continue
				}
				return identPrefix(t), true
			}
			return "", true
		}
		return identPrefix(rest), true
	}
	return "", false
}

// identPrefix is the identifier at the start of b.
func identPrefix(b []byte) string {
	j := 0
	for j < len(b) && (isWord(b[j]) || b[j] >= 0x80) {
		j++
	}
	return string(b[:j])
}

// pythonDecls finds def and class statements at the top level and methods
// one level into a class (named Class.method).
func pythonDecls(content []byte, starts []int) []decl {
	var out []decl
	class := ""
	for line := range starts {
		l := bytes.TrimRight(lineAt(content, starts, line), " \t\r\n")
		t := bytes.TrimLeft(l, " \t")
		indent := len(l) - len(t)
		if len(t) == 0 || t[0] == '#' {
			continue
		}
		if indent == 0 {
			class = ""
		}
		if indent > 4 {
			continue
		}
		kw := t
		kw = bytes.TrimPrefix(kw, []byte("async "))
		var name string
		switch {
		case bytes.HasPrefix(kw, []byte("def ")):
			name = identPrefix(bytes.TrimSpace(kw[4:]))
			if indent > 0 {
				if class == "" {
					continue
				}
				name = class + "." + name
			}
		case bytes.HasPrefix(kw, []byte("class ")) && indent == 0:
			name = identPrefix(bytes.TrimSpace(kw[6:]))
			class = name
		default:
			continue
		}
		first := line
		for first > 0 { // decorators belong to what they decorate
			p := bytes.TrimSpace(lineAt(content, starts, first-1))
			if !bytes.HasPrefix(p, []byte("@")) {
				break
			}
			first--
		}
		out = append(out, decl{line: first, docLine: docAbove(content, starts, first, "#"), symbol: name})
	}
	return out
}

// scriptDecls finds JavaScript and TypeScript declarations that start at
// column 0: functions, classes, interfaces, types, enums and bound
// constants, exported or not.
func scriptDecls(content []byte, starts []int) []decl {
	var out []decl
	for line := range starts {
		l := lineAt(content, starts, line)
		if len(l) == 0 || l[0] == ' ' || l[0] == '\t' {
			continue
		}
		rest := l
		for _, p := range []string{"export ", "default ", "declare ", "abstract ", "async "} {
			rest = bytes.TrimPrefix(rest, []byte(p))
		}
		var name string
		matched := false
		for _, kw := range []string{"function* ", "function ", "class ", "interface ", "type ", "enum ", "const ", "let ", "var ", "namespace "} {
			if bytes.HasPrefix(rest, []byte(kw)) {
				name = identPrefix(bytes.TrimSpace(rest[len(kw):]))
				matched = true
				break
			}
		}
		if !matched || name == "" {
			continue
		}
		out = append(out, decl{line: line, docLine: docAbove(content, starts, line, "//", "/*", "*", "*/"), symbol: name})
	}
	return out
}
