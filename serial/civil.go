package serial

// The proleptic Gregorian calendar in integer arithmetic (Howard Hinnant's
// days_from_civil and civil_from_days), so that formatting a time costs a
// few divisions rather than a time.Time's zone lookup.

// civil returns the date of the day days after 1970-01-01.
func civil(days int64) (y, m, d int64) {
	z := days + 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if m > 12 {
		m -= 12
	}
	y = yoe + era*400
	if m <= 2 {
		y++
	}
	return y, m, d
}

// daysFrom returns the days from 1970-01-01 to y-m-d, m in 1..12.
func daysFrom(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := floorDiv(y, 400)
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// daysIn returns the days of month m of year y.
func daysIn(y, m int64) int64 {
	return daysFrom(y+m/12, m%12+1, 1) - daysFrom(y, m, 1)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
