import { filledEnvironment, injectionVectorsOf, type InjectionVector } from '../suite-data.js';

/** A calendar event (AgentDojo's `CalendarEvent`); times as `YYYY-MM-DDTHH:MM:SS`. */
export interface CalendarEvent {
  id_: string;
  title: string;
  description: string;
  start_time: string;
  end_time: string;
  location: string | null;
  participants: string[];
  all_day: boolean;
  status: string;
}

/** An e-mail (AgentDojo's `Email`). */
export interface Email {
  id_: string;
  sender: string;
  recipients: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  body: string;
  status: string;
  read: boolean;
  timestamp: string;
  attachments: unknown[];
}

export interface Hotel {
  name: string;
  city: string;
  rating: number;
  price_min: number;
  price_max: number;
  address: string;
  reviews: string[];
}
export interface Restaurant {
  name: string;
  city: string;
  address: string;
  rating: number;
  price_per_person: number;
  operating_hours: string;
  reviews: string[];
  contact_information: string;
  cuisine_type: string;
  dietary_restrictions: string;
}
export interface CarRentalCompany {
  name: string;
  city: string;
  address: string;
  rating: number;
  price_per_day: number;
  reviews: string[];
  contact_information: string;
  car_types_available: string[];
  fuel_options: string[];
}
export interface Flight {
  airline: string;
  flight_number: string;
  departure_city: string;
  arrival_city: string;
  departure_time: string;
  arrival_time: string;
  price: number;
  contact_information: string;
}

/** The travel suite's environment (AgentDojo's `TravelEnvironment`). */
export interface TravelEnvironment {
  user: Record<string, string>;
  hotels: { hotel_list: Hotel[] };
  restaurants: { restaurant_list: Restaurant[] };
  car_rental: { company_list: CarRentalCompany[] };
  flights: { flight_list: Flight[] };
  reservation: {
    reservation_type: string | null;
    title: string;
    start_time: string;
    end_time: string;
    contact_information: string;
  };
  calendar: { account_email: string; current_day: string; events: Record<string, CalendarEvent> };
  inbox: { account_email: string; emails: Record<string, Email> };
}

/** The suite's injection vectors (data/travel/injection_vectors.yaml), in file order. */
export function injectionVectors(): InjectionVector[] {
  return injectionVectorsOf('travel');
}

/**
 * Python's `datetime.fromisoformat` for the forms the suite uses (`YYYY-MM-DD`, `YYYY-MM-DD HH:MM`,
 * `YYYY-MM-DDTHH:MM[:SS]`), as `YYYY-MM-DDTHH:MM:SS`; throws its ValueError otherwise.
 */
export function isoDateTime(text: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(String(text));
  if (!m || Number.isNaN(Date.parse(`${m[1]}T00:00:00Z`)))
    throw new Error(`Invalid isoformat string: '${text}'`);
  return `${m[1]}T${m[2] ?? '00'}:${m[3] ?? '00'}:${m[4] ?? '00'}`;
}

/** The environment with the given injections in place (events and e-mails keyed by their ids). */
export function loadEnvironment(injections: Readonly<Record<string, string>> = {}): TravelEnvironment {
  const raw = filledEnvironment('travel', injections) as Record<string, Record<string, unknown>>;
  const calendar = raw.calendar as {
    account_email: string;
    current_day: string;
    initial_events: CalendarEvent[];
  };
  const inbox = raw.inbox as { account_email: string; initial_emails: Email[] };
  const reservation = raw.reservation as TravelEnvironment['reservation'];
  return {
    user: raw.user as Record<string, string>,
    hotels: raw.hotels as TravelEnvironment['hotels'],
    restaurants: raw.restaurants as TravelEnvironment['restaurants'],
    car_rental: raw.car_rental as TravelEnvironment['car_rental'],
    flights: raw.flights as TravelEnvironment['flights'],
    reservation: {
      ...reservation,
      start_time: isoDateTime(reservation.start_time),
      end_time: isoDateTime(reservation.end_time),
    },
    calendar: {
      account_email: calendar.account_email,
      current_day: String(calendar.current_day),
      events: Object.fromEntries(
        calendar.initial_events.map((e) => [
          e.id_,
          { ...e, start_time: isoDateTime(e.start_time), end_time: isoDateTime(e.end_time) },
        ]),
      ),
    },
    inbox: {
      account_email: inbox.account_email,
      emails: Object.fromEntries(
        inbox.initial_emails.map((e) => [
          e.id_,
          { ...e, cc: e.cc ?? [], bcc: e.bcc ?? [], attachments: e.attachments ?? [] },
        ]),
      ),
    },
  };
}

/** The next id of a dict of events or e-mails (AgentDojo's `_get_next_id`). */
export function nextId(items: Record<string, unknown>): string {
  return String(Math.max(0, ...Object.keys(items).map(Number)) + 1);
}
