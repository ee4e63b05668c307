package eol

import "testing"

func TestClassify(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""}, {"no newline", ""}, {"a\nb\n", LF}, {"a\r\nb\r\n", CRLF}, {"a\r\nb", CRLF},
		{"a\r\nb\nc\r\n", Mixed}, {"a\rb\n", LF}, {"\r\n", CRLF},
	} {
		if got := Of([]byte(c.in)); got != c.want {
			t.Errorf("Of(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestCountCRLFAcrossChunks(t *testing.T) {
	text := []byte("a\r\nb\r\nc\nd\r\n")
	for cut := 0; cut <= len(text); cut++ {
		n := CountCRLF(text[:cut], false) + CountCRLF(text[cut:], cut > 0 && text[cut-1] == '\r')
		if n != 3 {
			t.Errorf("cut at %d: %d pairs, want 3", cut, n)
		}
	}
}

func TestLike(t *testing.T) {
	for _, c := range []struct{ text, ending, replaced, want string }{
		{"x\ny", CRLF, "a", "x\r\ny"},
		{"x\r\ny", CRLF, "a\r\nb", "x\r\ny"},
		{"x\ny", LF, "a\nb", "x\ny"},
		{"x\r\ny", LF, "a", "x\r\ny"}, // an LF file is written as given
		{"x\ny", Mixed, "a\r\nb", "x\r\ny"},
		{"x\r\ny", Mixed, "a\nb", "x\ny"},
		{"x\ny", Mixed, "a", "x\ny"},
	} {
		if got := Like(c.text, c.ending, []byte(c.replaced)); got != c.want {
			t.Errorf("Like(%q, %s, %q) = %q, want %q", c.text, c.ending, c.replaced, got, c.want)
		}
	}
}
