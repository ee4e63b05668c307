package rule

import (
	"fmt"
	"strings"
)

// Token is one piece of a line read without a shell: a word after quote
// removal, or an unquoted operator (Op set, Text empty).
type Token struct {
	Text string
	Op   string // "", or one of ; & && | || < > >> << ( ) ` $ $( ${ $' newline
	Pos  int    // byte offset in the line
}

// QuoteError is a quote or escape that is never closed.
type QuoteError struct {
	Quote string // ', " or \
	Pos   int
}

func (e *QuoteError) Error() string {
	if e.Quote == `\` {
		return fmt.Sprintf("the line ends with a lone backslash (offset %d)", e.Pos)
	}
	return fmt.Sprintf("the %s quote at offset %d is never closed", e.Quote, e.Pos)
}

// Scan tokenizes line the way POSIX sh splits words, with quotes and
// backslashes respected, but without expanding anything: every unquoted
// shell operator comes back as an Op token so the caller can refuse it.
func Scan(line string) ([]Token, error) {
	var toks []Token
	var b strings.Builder
	started, start := false, 0
	flush := func() {
		if started {
			toks = append(toks, Token{Text: b.String(), Pos: start})
		}
		b.Reset()
		started = false
	}
	begin := func(i int) {
		if !started {
			started, start = true, i
		}
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch c {
		case ' ', '\t', '\r':
			flush()
		case '\\':
			if i+1 >= len(line) {
				return toks, &QuoteError{Quote: `\`, Pos: i}
			}
			if line[i+1] == '\n' { // line continuation
				i++
				continue
			}
			begin(i)
			b.WriteByte(line[i+1])
			i++
		case '\'':
			begin(i)
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return toks, &QuoteError{Quote: "'", Pos: i}
			}
			b.WriteString(line[i+1 : i+1+end])
			i += end + 1
		case '"':
			begin(i)
			j := i + 1
			for ; j < len(line) && line[j] != '"'; j++ {
				if line[j] == '\\' && j+1 < len(line) && strings.IndexByte("\"\\$`\n", line[j+1]) >= 0 {
					if line[j+1] != '\n' {
						b.WriteByte(line[j+1])
					}
					j++
					continue
				}
				b.WriteByte(line[j])
			}
			if j >= len(line) {
				return toks, &QuoteError{Quote: `"`, Pos: i}
			}
			i = j
		case ';', '&', '|', '<', '>', '(', ')', '`', '$', '\n':
			flush()
			op, at := string(c), i
			if i+1 < len(line) {
				two := line[i : i+2]
				switch two {
				case "&&", "||", ">>", "<<", "$(", "${", "$'", ">&", "<&", "&>", "|&", ";;":
					op = two
					i++
				}
			}
			if op == "\n" {
				op = "newline"
			}
			toks = append(toks, Token{Op: op, Pos: at})
		default:
			begin(i)
			b.WriteByte(c)
		}
	}
	flush()
	return toks, nil
}

// Words is Scan for a line that must be a plain argv: an operator is an
// error naming it.
func Words(line string) ([]string, error) {
	toks, err := Scan(line)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(toks))
	for _, t := range toks {
		if t.Op != "" {
			return nil, fmt.Errorf("it holds the shell operator %q; write a plain argv", t.Op)
		}
		out = append(out, t.Text)
	}
	return out, nil
}
