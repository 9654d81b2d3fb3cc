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
// draft-07's content keywords.
func (b *builder) formats() error {
	if f, ok := b.m["format"].(string); ok {
		b.n.formatName = f
		table := b.c.opts.formats
		if table == nil {
			table = formatChecks
		}
		if c, ok := table[f]; ok && (c.since == 0 || b.draft >= c.since) {
			b.n.format = &c
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

// strings checks the string keywords; lengths count code points.
func (s *state) strings(n *node, v string, p *ipath) bool {
	ok := true
	if n.minLength >= 0 || n.maxLength >= 0 {
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
		m, err := n.pattern.match(v)
		switch {
		case err != nil:
			ok = s.fail(p, "pattern", n.pattern.undecided(err))
		case !m:
			ok = s.fail(p, "pattern", fmt.Sprintf("must match the pattern %q", n.pattern.src))
		}
		if !ok && !s.collect {
			return false
		}
	}
	if n.format != nil && !n.format.valid(v) {
		ok = s.fail(p, "format", "invalid "+n.formatName+": must be "+n.format.want)
		if !s.collect {
			return false
		}
	}
	if n.contentBase64 || n.contentJSON {
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
