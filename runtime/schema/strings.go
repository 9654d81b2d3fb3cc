package schema

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// strings reads minLength, maxLength, pattern and format.
func (b *builder) strings() error {
	var err error
	n := b.n
	if n.minLength, err = b.count("minLength", -1); err != nil {
		return err
	}
	if n.maxLength, err = b.count("maxLength", -1); err != nil {
		return err
	}
	if v, ok := b.m["pattern"]; ok {
		src, ok := v.(string)
		if !ok {
			return fmt.Errorf("%s: must be a string", b.at("pattern"))
		}
		if n.pattern, err = b.newPattern(src, b.at("pattern")); err != nil {
			return err
		}
	}
	return nil
}

// formats reads "format" (its own vocabulary, apart from validation) and
// draft-07's content keywords. A format the validator checks is asserted
// when the Compiler asserts formats (WithFormatAssertion), in draft-07,
// and where the schema's metaschema declares the format-assertion
// vocabulary; otherwise, as 2019-09 and 2020-12 say by default, it is an
// annotation.
func (b *builder) formats() error {
	if f, ok := b.m["format"].(string); ok {
		b.n.formatName = f
		table := b.c.opts.formats
		if table == nil {
			table = formatChecks
		}
		c, known := table[f]
		assert := b.c.opts.assertFormats || b.draft == draft7 || (b.vocab != nil && b.vocab.formatAssertion)
		if known && (c.since == 0 || b.draft >= c.since) && assert {
			b.n.format = &c
			b.c.asserted[f] = true
		} else {
			b.c.ignored[f] = true
		}
	}
	if b.draft == draft7 {
		// Draft-07 lets a validator assert contentEncoding and
		// contentMediaType; later drafts make them annotations.
		b.n.contentBase64 = b.m["contentEncoding"] == "base64"
		b.n.contentJSON = b.m["contentMediaType"] == "application/json"
	}
	return nil
}

// strings checks the string keywords; lengths count code points. Reading
// a string costs a step per 16 bytes.
func (s *state) strings(n *node, v string, p *ipath) bool {
	ok := true
	if n.minLength >= 0 || n.maxLength >= 0 {
		if !s.spend(int64(len(v)/16), p, "maxLength") {
			return false
		}
		l := utf8.RuneCountInString(v)
		if n.minLength >= 0 && l < n.minLength {
			ok = s.fail(p, "minLength", fmt.Sprintf("must be at least %d characters long, not %d", n.minLength, l))
			if !s.collect {
				return false
			}
		}
		if n.maxLength >= 0 && l > n.maxLength {
			ok = s.fail(p, "maxLength", fmt.Sprintf("must be at most %d characters long, not %d", n.maxLength, l))
			if !s.collect {
				return false
			}
		}
	}
	if n.pattern != nil {
		m, err := n.pattern.re.Match(v, s.budget)
		if err != nil {
			s.stop(err, p, "pattern")
			return false
		}
		if !m {
			ok = s.fail(p, "pattern", fmt.Sprintf("must match the pattern %q", n.pattern.src))
			if !s.collect {
				return false
			}
		}
	}
	if n.format != nil {
		if !s.spend(int64(len(v)/16), p, "format") {
			return false
		}
		if !n.format.valid(v) {
			ok = s.fail(p, "format", "invalid "+n.formatName+": must be "+n.format.want)
			if !s.collect {
				return false
			}
		}
	}
	if n.contentBase64 || n.contentJSON {
		if !s.spend(int64(len(v)/16), p, "contentEncoding") {
			return false
		}
		ok = s.content(n, v, p) && ok
	}
	return ok
}

// content checks draft-07's contentEncoding "base64" and contentMediaType
// "application/json".
func (s *state) content(n *node, v string, p *ipath) bool {
	text := []byte(v)
	if n.contentBase64 {
		var err error
		if text, err = base64.StdEncoding.DecodeString(v); err != nil {
			return s.fail(p, "contentEncoding", "must be base64: "+err.Error())
		}
	}
	if n.contentJSON && !json.Valid(text) {
		return s.fail(p, "contentMediaType", "must be a JSON document")
	}
	return true
}
