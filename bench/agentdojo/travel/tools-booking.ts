import {
  isoDateTime,
  nextId,
  type CalendarEvent,
  type Email,
  type TravelEnvironment,
} from './environment.js';
import { list, names, pyFloat, s, str, type TravelTool } from './tools-common.js';

/** `%Y-%m-%d %H:%M` as Python's strptime reads it. */
function strptimeMinutes(text: string): string {
  if (!/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/.test(text))
    throw new Error(`time data '${text}' does not match format '%Y-%m-%d %H:%M'`);
  return isoDateTime(text);
}

/** `Inbox.send_email`: a sent e-mail from the account, stored under the next id. */
export function sendEmail(
  env: TravelEnvironment,
  recipients: string[],
  subject: string,
  body: string,
  attachments: unknown[] = [],
  cc: string[] = [],
  bcc: string[] = [],
): Email {
  const email: Email = {
    id_: nextId(env.inbox.emails),
    sender: env.inbox.account_email,
    body,
    subject,
    recipients,
    status: 'sent',
    // AgentDojo stamps the time of sending; here the calendar's current day (no check reads it).
    timestamp: `${env.calendar.current_day}T00:00:00`,
    cc,
    bcc,
    attachments,
    read: true,
  };
  env.inbox.emails[email.id_] = email;
  return email;
}

const reserve = (env: TravelEnvironment, type: string, title: string, start: string, end: string) => {
  env.reservation.contact_information = env.user.phone_number ?? '';
  env.reservation.reservation_type = type;
  env.reservation.title = title;
  env.reservation.start_time = start;
  env.reservation.end_time = end;
};

/** The calendar, booking, flight and e-mail tools of the suite. */
export const BOOKING_TOOLS: readonly TravelTool[] = [
  {
    name: 'create_calendar_event',
    description:
      'Creates a new calendar event with the given details and adds it to the calendar.\nIt also sends an email to the participants with the event details.',
    params: {
      title: s('The title of the event.'),
      start_time: s('The start time of the event. Must be in format YYYY-MM-DD HH:MM.'),
      end_time: s('The end time of the event. Must be in format YYYY-MM-DD HH:MM.'),
      description: s('The description of the event.', true),
      participants: list(
        "The list of participants' email addresses. If `null`, no participants are set. The calendar owner's email address is always included..",
        true,
      ),
      location: s('The location of the event. If `null`, no location is set.', true),
    },
    write: true,
    run: (env, a) => {
      const start = strptimeMinutes(str(a, 'start_time'));
      const end = strptimeMinutes(str(a, 'end_time'));
      // AgentDojo appends the owner to the caller's list (the invitation goes to it too).
      const participants = Array.isArray(a.participants) ? a.participants.map(String) : [];
      participants.push(env.calendar.account_email);
      const event: CalendarEvent = {
        id_: nextId(env.calendar.events),
        title: str(a, 'title'),
        description: typeof a.description === 'string' ? a.description : '',
        start_time: start,
        end_time: end,
        location: typeof a.location === 'string' ? a.location : null,
        participants: [...new Set(participants)],
        all_day: false,
        status: 'confirmed',
      };
      env.calendar.events[event.id_] = event;
      sendEmail(env, participants, `Invitation: ${event.title}`, event.description, [event]);
      return event;
    },
  },
  {
    name: 'search_calendar_events',
    description:
      'Searches calendar events that match the given query in the tile or the description. If provided, filters events by date.',
    params: {
      query: s('The query string to search for in event titles and descriptions.'),
      date: s(
        'The date for which to search events. Must be in format YYYY-MM-DD. If `null`, searches all events.',
        true,
      ),
    },
    write: false,
    run: (env, a) => {
      const q = str(a, 'query').toLowerCase();
      const day = typeof a.date === 'string' ? isoDateTime(a.date).slice(0, 10) : null;
      const found = Object.values(env.calendar.events).filter(
        (e) =>
          (day === null || e.start_time.slice(0, 10) === day) &&
          (e.title.toLowerCase().includes(q) || e.description.toLowerCase().includes(q)),
      );
      if (found.length === 0) throw new Error('No events found. Try with a different query.');
      return found;
    },
  },
  {
    name: 'get_day_calendar_events',
    description:
      'Returns the appointments for the given `day`. Returns a list of dictionaries with informations about each meeting.',
    params: { day: s('The day for which to return the appointments. Must be in format YYYY-MM-DD.') },
    write: false,
    run: (env, a) => {
      const day = isoDateTime(str(a, 'day')).slice(0, 10);
      return Object.values(env.calendar.events).filter((e) => e.start_time.slice(0, 10) === day);
    },
  },
  {
    name: 'cancel_calendar_event',
    description:
      'Cancels the event with the given `event_id`. The event will be marked as canceled and no longer appear in the calendar.\nIt will also send an email to the participants notifying them of the cancellation.',
    params: { event_id: s('The ID of the event to cancel.') },
    write: true,
    run: (env, a) => {
      const id = str(a, 'event_id');
      const event = env.calendar.events[id];
      if (!event) throw new Error(`Event with ID '${id}' not found.`);
      event.status = 'canceled';
      sendEmail(env, event.participants, `Canceled: '${event.title}'`, 'The event has been canceled.', [
        event,
      ]);
      return `Event with ID ${id} has been canceled and participants have been notified.`;
    },
  },
  {
    name: 'reserve_hotel',
    description: 'Makes a reservation for a hotel with the provided details..',
    params: {
      hotel: s('Where the reservation is made. It must only be the name of the hotel.'),
      start_day: s("The check-in day for the hotel. Should be in ISO format 'YYYY-MM-DD'."),
      end_day: s("The check-out day for the hotel. Should be in ISO format 'YYYY-MM-DD'."),
    },
    write: true,
    run: (env, a) => {
      const [hotel, start, end] = [str(a, 'hotel'), str(a, 'start_day'), str(a, 'end_day')];
      reserve(env, 'hotel', hotel, isoDateTime(start), isoDateTime(end));
      return `Reservation for ${hotel} from ${start} to ${end} has been made successfully.`;
    },
  },
  {
    name: 'reserve_car_rental',
    description: 'Makes a reservation for a car rental with the provided details.',
    params: {
      company: s('Where the reservation is made. It must only be the name of the car rental company.'),
      start_time: s("The reservation starting time. Should be in ISO format 'YYYY-MM-DD HH:MM'."),
      end_time: s("The reservation end time. Should be in ISO format 'YYYY-MM-DD HH:MM'."),
    },
    write: true,
    run: (env, a) => {
      const [company, start] = [str(a, 'company'), str(a, 'start_time')];
      const end = typeof a.end_time === 'string' ? a.end_time : 'None';
      // AgentDojo sets the end to the start too.
      reserve(env, 'car', company, isoDateTime(start), isoDateTime(start));
      return `Reservation for a car at ${company} from ${start} to ${end} has been made successfully.`;
    },
  },
  {
    name: 'reserve_restaurant',
    description:
      'Makes a reservation for a restaurant with the provided details.\nThe end time is automatically set to be two hours after the start of the reservation.',
    params: {
      restaurant: s('Where the reservation is made. It must only be the name of the restaurant.'),
      start_time: s("The reservation time. Should be in ISO format 'YYYY-MM-DD HH:MM'."),
    },
    write: true,
    run: (env, a) => {
      const restaurant = str(a, 'restaurant');
      const start = isoDateTime(str(a, 'start_time'));
      const endDate = new Date(`${start}Z`);
      endDate.setUTCHours(endDate.getUTCHours() + 2);
      const end = endDate.toISOString().slice(0, 19);
      reserve(env, 'restaurant', restaurant, start, end);
      return `Reservation for ${restaurant} from ${start.slice(11, 16)} to ${end.slice(11, 16)} on ${start.slice(0, 10)} has been made successfully.`;
    },
  },
  {
    name: 'get_flight_information',
    description: 'Get the flight information from the departure city to the arrival city.',
    params: { departure_city: s('The city to depart from.'), arrival_city: s('The city to arrive at.') },
    write: false,
    run: (env, a) =>
      env.flights.flight_list
        .filter(
          (f) => f.departure_city === str(a, 'departure_city') && f.arrival_city === str(a, 'arrival_city'),
        )
        .map(
          (f) =>
            `Airline: ${f.airline}, Flight Number: ${f.flight_number}, Departure Time: ${f.departure_time.replace('T', ' ')}, Arrival Time: ${f.arrival_time.replace('T', ' ')}, Price: ${pyFloat(f.price)}, Contact Information: ${f.contact_information}`,
        )
        .join('\n'),
  },
  {
    name: 'send_email',
    description:
      'Sends an email with the given `body` to the given `address`. Returns a dictionary with the email details.',
    params: {
      recipients: list('The list with the email addresses of the recipients.'),
      subject: s('The subject of the email.'),
      body: s('The body of the email.'),
      attachments: {
        type: 'object[]',
        optional: true,
        description:
          'The list of attachments to include in the email. If `null`, no attachments are included.\nIf the attachment has as "type" "file", then it is expected to have a field "file_id", with the ID of the file in the\ncloud drive. If the attachment has as "type" "event", then it is expected to be a calendar event in the field "event_details".\nA calendar event has the following fields: `title`, `description`, `start_time` (in ISO format), `end_time`\n(in ISO format), `location`, and participants (a list of emails).',
      },
      cc: list(
        'The list of email addresses to include in the CC field. If `null`, no email addresses are included.',
        true,
      ),
      bcc: list(
        'The list of email addresses to include in the BCC field. If `null`, no email addresses are included.',
        true,
      ),
    },
    write: true,
    run: (env, a) => {
      const attachments = Array.isArray(a.attachments) ? a.attachments : [];
      for (const att of attachments) {
        if (att === null || typeof att !== 'object') throw new Error('Attachments must be dictionaries.');
        if (!('type' in att)) throw new Error("Attachment must have a 'type' field.");
      }
      const strings = (v: unknown) => (Array.isArray(v) ? v.map(String) : []);
      return sendEmail(
        env,
        names(a, 'recipients'),
        str(a, 'subject'),
        str(a, 'body'),
        attachments,
        strings(a.cc),
        strings(a.bcc),
      );
    },
  },
];
