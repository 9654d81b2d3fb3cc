package schema

import "strings"

// RFC 3339 section 5.6, as JSON Schema's "date-time", "date" and "time"
// formats use it: "T" and "Z" in either case, a leap second (:60) only at
// 23:59 UTC once the offset is applied, offsets up to ±23:59.

// validDateTime is full-date "T" full-time.
func validDateTime(s string) bool {
	i := strings.IndexAny(s, "Tt")
	return i == 10 && validFullDate(s[:i]) && validFullTime(s[i+1:])
}

// validFullDate is YYYY-MM-DD, a day that exists.
func validFullDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	y, ok1 := digits(s[0:4])
	m, ok2 := digits(s[5:7])
	d, ok3 := digits(s[8:10])
	if !ok1 || !ok2 || !ok3 || m < 1 || m > 12 || d < 1 {
		return false
	}
	return d <= daysIn(y, m)
}

func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// validFullTime is HH:MM:SS[.frac] then "Z" or ±HH:MM.
func validFullTime(s string) bool {
	if len(s) < 9 || s[2] != ':' || s[5] != ':' {
		return false
	}
	h, ok1 := digits(s[0:2])
	m, ok2 := digits(s[3:5])
	sec, ok3 := digits(s[6:8])
	if !ok1 || !ok2 || !ok3 || h > 23 || m > 59 || sec > 60 {
		return false
	}
	rest := s[8:]
	if frac, ok := strings.CutPrefix(rest, "."); ok {
		n := 0
		for n < len(frac) && frac[n] >= '0' && frac[n] <= '9' {
			n++
		}
		if n == 0 {
			return false
		}
		rest = frac[n:]
	}
	offset := 0 // minutes east of UTC
	switch {
	case rest == "Z" || rest == "z":
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		oh, ok1 := digits(rest[1:3])
		om, ok2 := digits(rest[4:6])
		if !ok1 || !ok2 || oh > 23 || om > 59 {
			return false
		}
		offset = oh*60 + om
		if rest[0] == '-' {
			offset = -offset
		}
	default:
		return false
	}
	if sec == 60 {
		utc := ((h*60+m-offset)%1440 + 1440) % 1440
		return utc == 23*60+59
	}
	return true
}

// digits parses s, ASCII digits only.
func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, len(s) > 0
}
