/**
 * The word material of the built-in caption generator: English phrases it composes captions from.
 *
 * A phrase may start with tone flags and a bar (`cp|…`); the generator uses it only when the brand's
 * tone allows every flag:
 *   c casual (formality 4 or less)   f formal (formality 6 or more)
 *   p playful (humor 6 or more)
 *   e energetic (energy 6 or more)   q quiet (energy 4 or less)
 * A formal brand (formality 7 or more) gets every contraction written out ("do not", "it is").
 * Placeholders: {topic} / {Topic} (capitalised), {brand}, {audience}, {url}, {vocab} / {Vocab},
 * {tip}, {n} (slides or frames in the post). A phrase whose placeholder the brand cannot fill is
 * skipped.
 *
 * The topic is a noun phrase of unknown number ("meal prep", "home workouts"), so no phrase makes a
 * verb agree with it: it follows a preposition, a colon or a modal. Phrases never end in `!` (the
 * energy slider adds them) and never contain `#` (hashtags are the generator's own list). A URL is
 * followed by a space or nothing, never by punctuation a platform could read as part of the link.
 */

export type Family = 'thought' | 'scene' | 'sequence' | 'reel' | 'spoken' | 'video' | 'demo' | 'carousel';

/** Openers any post can use; they name no format. */
export const GENERIC_HOOKS: readonly string[] = [
  'A quick note on {topic}.',
  "Let's talk about {topic}.",
  "Here's what we've learned about {topic}.",
  'Small change, big difference: {topic}.',
  "Everyone has an opinion on {topic}. Here's ours.",
  'What nobody tells you about {topic}.',
  'The part of {topic} most people skip.',
  'Ever wondered what really makes {topic} work?',
  'If you only read one thing about {topic} this week, make it this.',
  "Today's focus: {topic}.",
  '{Topic}, explained simply.',
  '{Topic}, minus the guesswork.',
  '{Topic}: simpler than you think.',
  'Your shortcut to better {topic}.',
  'A better way to think about {topic}.',
  'Save this one if you care about {topic}.',
  'Before you spend another minute on {topic}, read this.',
  'One idea that changed how we see {topic}.',
  'Our take on {topic}.',
  'The {brand} take on {topic}.',
  "Here's a fresh angle on {topic}.",
  'Most advice about {topic} misses one thing.',
  'Getting {topic} right starts here.',
  'Thinking about {topic}? Start here.',
  'New to {topic}? Start here.',
  "Still figuring out {topic}? You're not alone.",
  'Three words: keep it simple. Especially with {topic}.',
  'The honest guide to {topic}.',
  'A few things we wish we had known about {topic} sooner.',
  'Got {topic} on your list? This is for you.',
  'This week at {brand}: {topic}.',
  'c|Real talk about {topic}.',
  "c|Okay, let's talk {topic}.",
  'c|The no-fluff version of {topic}.',
  'c|Can we talk about {topic} for a sec?',
  'f|A few thoughts on {topic}.',
  'f|Some observations on {topic} from our team.',
  'f|An overview of {topic}, in brief.',
  'f|Key considerations for {topic}.',
  'p|Plot twist: {topic} can be simple.',
  "p|Unpopular opinion incoming, and it's about {topic}.",
  'p|Warning: this post may change how you see {topic}.',
  'p|Fun fact: nobody is born good at {topic}.',
  "e|Let's get into {topic}.",
  "e|This one's all about {topic}.",
  'e|Ready to level up your {topic}?',
  'q|A calm look at {topic}.',
  'q|Slow down for a minute and think about {topic}.',
  'q|A gentle reminder about {topic}.',
];

/** Openers shaped by the format: a spoken hook for camera, a scene for a photo, and so on. */
export const FAMILY_HOOKS: Readonly<Record<Family, readonly string[]>> = {
  thought: [
    'Thought for the day on {topic}.',
    'Reminder: small steps with {topic} add up.',
    'Something we keep coming back to: {topic}.',
    'A simple truth about {topic}: the basics carry you further than the tricks.',
    'No picture needed for this one.',
    'Just a thought on {topic}.',
    'Note to self, and to you: practice makes {topic} easier.',
    'Sometimes the best advice on {topic} is the simplest.',
    'One sentence we needed to hear about {topic}.',
    'Worth saying out loud: progress with {topic} is rarely a straight line.',
    'f|A brief reflection on {topic}.',
    'c|Hot take on {topic}, coming up.',
    'q|A quiet thought on {topic}.',
  ],
  scene: [
    'Picture this: {topic}, done right.',
    'This is what good {topic} looks like.',
    'A snapshot of {topic} at its best.',
    'One image, one idea: {topic}.',
    'Take a closer look at this one.',
    'The details in this shot say a lot about {topic}.',
    'A moment from our week, all about {topic}.',
    'Caught on camera: {topic} in real life.',
    'Zoom in. The little things matter with {topic}.',
    'f|An image that captures our approach to {topic}.',
    'p|Captured in the wild: {topic}.',
    'q|A quiet moment with {topic}.',
  ],
  sequence: [
    'Step by step: {topic}.',
    'From start to finish: {topic} in {n} frames.',
    'A slideshow on {topic}, one step at a time.',
    'Frame by frame: how we approach {topic}.',
    'Follow along: {n} steps to better {topic}.',
    'First this, then that: {topic} in order.',
    '{Topic}, in {n} simple stages.',
    'f|A sequential overview of {topic} in {n} frames.',
  ],
  reel: [
    '{Topic} in 15 seconds.',
    'A quick reel on {topic}.',
    'Fast, simple, and all about {topic}.',
    'Short reel, big idea: {topic}.',
    'Sound on for this one.',
    'Real people, real {topic}.',
    'A day in the life, starring {topic}.',
    'p|Watch it twice. We did.',
    'e|Quick reel, big energy: {topic}.',
  ],
  spoken: [
    'Let me tell you what nobody says about {topic}.',
    "Here's the question we hear most about {topic}.",
    'Quick story about {topic}.',
    'If we could share only one thing about {topic}, it would be this.',
    'We sat down to talk {topic}, honestly.',
    "Here's the honest answer to your {topic} questions.",
    'Straight talk on {topic}, in under a minute.',
    'Sound on: this one is about {topic}.',
    'Hit play for our take on {topic}.',
    'c|Stop scrolling for a second. This is about {topic}.',
    'c|Okay, real quick: {topic}.',
    'f|In this video, we share our perspective on {topic}.',
    'f|Our team speaks plainly about {topic} in this short video.',
    'p|We turned the camera on and talked {topic}. No retakes. Okay, a few.',
  ],
  video: [
    'Watch this before you try {topic} again.',
    'Wait for the last few seconds.',
    'Watch until the end: {topic}, done differently.',
    "This is the {topic} moment you don't want to miss.",
    'The first three seconds say it all about {topic}.',
    "You won't look at {topic} the same way after this.",
    "Hit play. {Topic}, like you haven't seen it.",
    'Watch closely: the detail that changes {topic}.',
    'p|Blink and you will miss it.',
    'e|Watch this one all the way through.',
    'f|This short video shows {topic} in a new light.',
  ],
  demo: [
    "Here's how it works, start to finish.",
    'Watch the demo: {topic} in under a minute.',
    'See {topic} in action.',
    'From zero to done: {topic}, demonstrated.',
    "Show, don't tell: {topic}.",
    'One take, no edits: {topic} in practice.',
    '{Topic}, in real time.',
    'The quickest way to see {topic} at work.',
    'f|A brief demonstration of {topic}.',
    'e|Watch {topic} come together, fast.',
  ],
  carousel: [
    'Swipe through for {n} ideas on {topic}.',
    '{n} slides on {topic}. Swipe to the end.',
    'Your {topic} cheat sheet, one slide at a time.',
    'Swipe left for a step-by-step look at {topic}.',
    'Everything we know about {topic}, in {n} slides.',
    'Swipe for the breakdown on {topic}.',
    "The {topic} guide you'll want to save. Swipe through.",
    '{n} slides, one goal: better {topic}.',
    'f|Browse the slides for a structured overview of {topic}.',
    'p|Swipe responsibly: {n} slides of {topic} ahead.',
  ],
};

/**
 * A line saying what the media is, added after an opener that does not already say it: a carousel
 * or a slideshow always announces its slides.
 */
export const FORMAT_LINES: Readonly<Record<Family, readonly string[]>> = {
  thought: ['Read it twice.', 'No visuals, just the idea.', 'Sit with this one for a moment.'],
  scene: ['Look closely.', 'The photo says the rest.', 'Every detail in this shot was on purpose.'],
  sequence: [
    'Tap through all {n} frames.',
    'Each slide builds on the last.',
    'Follow the sequence from the first frame to the last.',
    '{n} frames, in order.',
  ],
  reel: ['Watch the reel.', 'Sound on.', 'Short enough to watch twice.'],
  spoken: ['Hit play.', 'Sound on for this one.', 'Give it a minute. It is worth it.'],
  video: ['Watch to the end.', 'Hit play and watch closely.', 'Sound on.'],
  demo: ['Watch the demo.', 'Full walkthrough in the video.', 'Every step is in the video.'],
  carousel: [
    'Swipe through all {n} slides.',
    'Swipe to see every step.',
    'Save it, then swipe.',
    'Slide {n} is the one to screenshot.',
    '{n} slides. Swipe through.',
  ],
};

/** The message: one or two sentences around the topic, or a principle that fits any topic. */
export const BODIES: readonly string[] = [
  "The secret isn't doing more. It's doing the basics well, every time.",
  'Start small, stay consistent, and let the results build.',
  'Most progress comes from a few simple habits repeated often.',
  'Skip the shortcuts. A clear plan beats a clever trick.',
  'It comes down to three things: clarity, consistency, and care.',
  'Overwhelmed by {topic}? Pick one thing and do it well.',
  'With {topic}, showing up beats perfection.',
  "With {topic}, small improvements compound faster than you'd expect.",
  "We've tested a lot of approaches to {topic}. The simple ones win.",
  'The best results with {topic} come from a routine you can actually keep.',
  'Think of {topic} as a habit, not a one-off project.',
  "You don't need the perfect setup to get started with {topic}.",
  'Focus on what you can control and let the rest follow.',
  'Every expert in {topic} started as a beginner.',
  "It's not about having more time. It's about using the time you have.",
  'A little planning up front saves a lot of effort later.',
  'Consistency beats intensity, especially with {topic}.',
  "Measure what matters, drop what doesn't, and keep going.",
  'The difference is in the details most people overlook.',
  'Keep it simple, keep it honest, and keep it going.',
  'We believe {topic} should feel doable, not daunting.',
  'Clear goals make {topic} easier to get right.',
  'With {topic}, it all starts with asking better questions.',
  "Do less, but do it better. That's our rule for {topic}.",
  'Quality over quantity applies to {topic} too.',
  'The first step is usually the hardest. After that, momentum helps.',
  'Learn the fundamentals of {topic} once and they pay off for years.',
  'Tiny tweaks to {topic} can change the whole outcome.',
  'Progress with {topic} rarely looks dramatic from the inside. Keep going.',
  'Simple systems make {topic} easier to stick with.',
  "There's no single right way to approach {topic}, but there are a few wrong ones.",
  'Good tools help, but habits do the heavy lifting.',
  "You're closer than you think. Keep at it.",
  "The people who do well with {topic} aren't luckier. They're more consistent.",
  'Start where you are, use what you have, and build from there.',
  'A clear first step beats a perfect plan you never start.',
  'Make {topic} part of your week, not an extra on top of it.',
  'Every detail is there for a reason.',
  "It's the little things that make the everyday better.",
  "We sweat the small stuff so you don't have to.",
  'Simple, useful, and made to fit the way you live.',
  'We built this around one question: what would make your day easier?',
  'Good design is quiet. You just notice that things work.',
  'Thoughtful choices, every step of the way.',
  'When it comes to {topic}, the details make the difference.',
  'There is more to {topic} than meets the eye.',
  'We care about {topic} because our customers do.',
  'f|Every aspect of {topic} reflects our commitment to quality.',
  'p|We may be a little obsessed with {topic}. No regrets.',
  'f|Our experience shows that careful preparation leads to better outcomes with {topic}.',
  'f|A thoughtful approach to {topic} consistently delivers stronger results.',
  'f|We recommend starting with clear objectives and reviewing progress regularly.',
  'f|Sustainable progress depends on sound fundamentals applied with discipline.',
  'c|Honestly? Most of it is just showing up.',
  'c|No magic trick here, just good habits on repeat.',
  'c|Not gonna lie, {topic} got a lot easier once we stopped overthinking it.',
  "p|Spoiler: there's no secret sauce. Just good ingredients and patience.",
  'p|We tried overthinking {topic}. Zero stars, would not recommend.',
  'p|If {topic} had a cheat code, it would be consistency.',
  "q|Take it one step at a time. There's no rush.",
  'q|Give {topic} a little patience and it gives back more.',
  'e|Momentum is everything, so start now and keep the streak alive.',
  'e|Pick one move, make it today, and build from there.',
];

/** Short actions, used as a tip line or as the items of a list; each fits one line. */
export const TIPS: readonly string[] = [
  'Start with one clear goal',
  'Block out time on your calendar',
  'Keep a simple checklist',
  'Review what worked last week',
  "Cut one step you don't need",
  'Ask for feedback early',
  'Track one number that matters',
  'Batch similar tasks together',
  'Set a realistic deadline',
  'Learn from someone you trust',
  'Write down the next action',
  'Celebrate small wins',
  'Keep your tools within reach',
  'Test one change at a time',
  'Share your progress with someone',
  'Plan ahead, then adjust',
  'Say no to the extras',
  'Rest before you burn out',
  'Build on what already works',
  'Keep notes as you go',
  'Start before you feel ready',
  'Make it part of your routine',
  'Focus on quality first',
  'Give it two weeks, then review',
  'Borrow a proven template',
  'Remove one distraction',
  'Do the hardest part first',
  'Prepare the night before',
  'Keep it simple',
  'Repeat what works',
  'Set a reminder you will see',
  'Ask one better question',
];

/** Frames for one tip on its own line. */
export const TIP_LINES: readonly string[] = [
  'Tip: {tip}.',
  'Pro tip: {tip}.',
  'Try this: {tip}.',
  'Our advice: {tip}.',
  'One thing to try this week: {tip}.',
  'If you do one thing, do this: {tip}.',
  'Where to begin: {tip}.',
  'c|Quick tip: {tip}.',
  'f|Our recommendation: {tip}.',
];

/** What the reader gets out of it. */
export const BENEFITS: readonly string[] = [
  'The payoff: less stress and better results.',
  "You'll save time and feel more in control.",
  'Less guesswork, more progress.',
  'The result is more time for what matters.',
  "It's the kind of change you notice within a week.",
  'Fewer mistakes, faster results, better days.',
  "That's how good habits turn into real results.",
  'Small effort now, big relief later.',
  "Do it once and you'll wonder why you waited.",
  'It adds up faster than you think.',
  'Clearer days, calmer decisions.',
  'Better results without burning out.',
  'f|The outcome is greater clarity and more reliable results.',
  'f|This approach reduces effort while improving quality.',
  'p|Your future self is already saying thanks.',
  'p|Side effects may include feeling very organised.',
  "e|That's momentum you can feel.",
  'q|A little calmer, a little clearer, every day.',
];

/** A short first-person aside before the message. */
export const STORIES: readonly string[] = [
  "We learned this the hard way, so you don't have to.",
  'This started as a small experiment on our team.',
  'A customer asked us about this recently, and the answer was too good not to share.',
  'We used to get this wrong too.',
  'It took us a while to figure this out.',
  'This one came straight from our community.',
  'We changed one habit last month. It made a real difference.',
  'f|This insight comes from years of working closely with our clients.',
  'c|Confession: we overcomplicated this for ages.',
];

/** Calls to action with no brand detail. */
export const GENERIC_CTAS: readonly string[] = [
  'Save this for later.',
  'Share it with someone who needs it.',
  'Follow for more on {topic}.',
  'Tell us your take in the comments.',
  'Drop your best tip below.',
  'Tag a friend who would love this.',
  'Try it this week and let us know how it goes.',
  'Bookmark this for your next project.',
  'Follow along for more like this.',
  'Send this to your team.',
  'Save it and share it with a friend.',
  'Pass this on to someone starting out.',
  'More on {topic} soon, so stay close.',
  'f|We welcome your thoughts in the comments.',
  'f|Follow our page for further insights on {topic}.',
  "c|Hit follow so you don't miss the next one.",
  'c|Comment "more" if you want part two.',
  'e|Try it now and tell us how it goes.',
  "e|Don't wait. Start today.",
  'p|Screenshot it. Your memory will thank you.',
  "q|Save it and come back when you're ready.",
];

/** Calls to action pointing at the website (the URL always ends the sentence with a space or nothing). */
export const URL_CTAS: readonly string[] = [
  'Learn more at {url}',
  'More ideas on our site: {url}',
  'Get started at {url}',
  'Read the full guide at {url}',
  'See how we can help: {url}',
  'Details: {url}',
  'f|Visit {url} to learn more.',
  'c|Take a look: {url}',
];

/** Calls to action naming the audience. */
export const AUDIENCE_CTAS: readonly string[] = [
  'Calling all {audience}: save this one.',
  'Share this with the {audience} in your life.',
  'Built for {audience}. Follow for more.',
  'Made with {audience} in mind. Pass it on.',
  'f|Written for {audience}. We hope it helps.',
  "c|For all the {audience} out there: this one's for you.",
];

/** Calls to action naming the brand. */
export const BRAND_CTAS: readonly string[] = [
  'Follow {brand} for more on {topic}.',
  'Stay tuned, {brand} has more coming.',
  'Questions? Ask {brand} in the comments.',
  'More from {brand} soon.',
  'f|Follow {brand} for further updates.',
];

/** Questions inviting a reply. */
export const QUESTIONS: readonly string[] = [
  "What's your approach to {topic}?",
  'How do you handle {topic}?',
  'What would you add?',
  'Which tip will you try first?',
  "What's the biggest challenge you face with {topic}?",
  'Agree or disagree?',
  "What's worked for you?",
  'Where do you want to start?',
  'Have you tried this before?',
  "What's one thing you'd change about {topic}?",
  'Which part surprised you?',
  'What should we cover next?',
  'f|What has your experience been with {topic}?',
  'f|Which of these approaches resonates with you?',
  'c|Be honest, how many of these do you already do?',
  'p|Is it just us, or can {topic} actually be fun?',
  "e|Who's trying this with us?",
];

/** Lines carrying a vocabulary word, whatever its part of speech. */
export const VOCAB_LINES: readonly string[] = [
  '{Vocab}, every time.',
  'In a word: {vocab}.',
  'Our word for it: {vocab}.',
  '{Vocab}. Always.',
  'One word to remember: {vocab}.',
  'Keyword of the day: {vocab}.',
  '{Vocab}: that is the goal.',
];

/** Lines naming the brand. */
export const BRAND_LINES: readonly string[] = [
  "That's the {brand} way.",
  'At {brand}, this is how we work.',
  'This is what {brand} is here for.',
  '{brand}, here to help.',
  'f|At {brand}, we take {topic} seriously.',
  'c|Team {brand} approved.',
];

/** Myth and fact pairs, for templates that ask for one. */
export const MYTHS: readonly (readonly [myth: string, fact: string])[] = [
  ['You need expensive gear to get {topic} right.', 'The right habits matter more than the tools.'],
  ['Only experts can get {topic} right.', 'Anyone can learn it with a clear plan.'],
  ['More effort always means better {topic}.', 'Focused effort beats more effort.'],
  ['You have to get {topic} perfect the first time.', 'Done and improved beats perfect and late.'],
  ['There is no time for {topic}.', 'Ten focused minutes are enough to start.'],
  ['Results with {topic} should be instant.', 'Real progress takes a few weeks of consistency.'],
  ['Talent is what matters most in {topic}.', 'Practice and patience matter more.'],
];

/** Before and after pairs, for templates that ask for one. */
export const BEFORE_AFTER: readonly (readonly [before: string, after: string])[] = [
  ['Guessing.', 'A plan you can follow.'],
  ['Too many steps.', 'Only the ones that matter.'],
  ['Starting from scratch every time.', 'A routine that carries you.'],
  ['Busy but stuck.', 'Focused and moving.'],
  ['Overthinking it.', 'Doing it.'],
  ['Scattered notes.', 'One clear checklist.'],
];

/** A problem to open with, for templates that ask for one. */
export const PROBLEMS: readonly string[] = [
  'Struggling to stay consistent with {topic}?',
  'Feeling stuck with {topic}?',
  'Short on time for {topic}?',
  'Overwhelmed by all the advice on {topic}?',
  'Tried everything with {topic} and still not seeing results?',
  'Not sure where to start with {topic}?',
];

/** Frames for a one-line summary around a tip. */
export const RECAP_LINES: readonly string[] = [
  'In short: {tip}.',
  'The takeaway: {tip}.',
  'Bottom line: {tip}.',
  'c|TL;DR: {tip}.',
];

/** Frames for a solution around a tip. */
export const SOLUTION_LINES: readonly string[] = [
  "Here's the fix: {tip}.",
  'The answer is simpler than it looks: {tip}.',
  'What helps: {tip}.',
];

/** Stand-ins for a quote or testimonial section: we do not invent what customers said. */
export const COMMUNITY_LINES: readonly string[] = [
  "We'd love to feature your story. Share it below.",
  'Your experience could help someone else. Tell us about it.',
  'The best advice we get comes from you. Keep it coming.',
];

/** Stand-ins for a facts or statistics section: a principle, never an invented number. */
export const FACT_LINES: readonly string[] = [
  'Worth knowing: the right habits matter more than the tools.',
  'Worth knowing: focused effort beats more effort.',
  'Worth knowing: small steps, repeated, outperform big one-off pushes.',
  'Worth knowing: consistency beats intensity.',
];

/** Openers of a list of tips. */
export const LIST_INTROS: readonly string[] = [
  'What helps:',
  'Try this:',
  'Our short list:',
  'Where to start:',
  'The essentials:',
  'Three things that work:',
];

/** Before the tips of a template's "mistakes" section, which are what to do instead. */
export const MISTAKES_INTRO = 'Avoid the usual mistakes. Instead:';

/** Emoji for playful or high-energy brands, by format and for anything. */
export const EMOJI: Readonly<Record<Family | 'any', readonly string[]>> = {
  any: ['✨', '🙌', '💡', '🚀', '🔥', '👏', '💪', '🌟', '✅', '🎯'],
  thought: ['💭', '🧠', '💡'],
  scene: ['📸', '👀', '🌿'],
  sequence: ['👉', '📌', '🧩'],
  reel: ['🎬', '🎥', '🔊'],
  spoken: ['🎙️', '🗣️', '🎥'],
  video: ['🎥', '👀', '⏯️'],
  demo: ['🛠️', '⚙️', '🎬'],
  carousel: ['👉', '📌', '➡️'],
};

/** Generic hashtags that fit the format, used when the brand and topic give too few. */
export const FAMILY_TAGS: Readonly<Record<Family, readonly string[]>> = {
  thought: ['Mindset', 'FoodForThought'],
  scene: ['BehindTheScenes', 'Snapshot'],
  sequence: ['StepByStep', 'HowTo'],
  reel: ['Reels', 'QuickTips'],
  spoken: ['RealTalk', 'TalkingPoints'],
  video: ['WatchThis', 'Video'],
  demo: ['HowTo', 'Demo'],
  carousel: ['SwipeThrough', 'SaveThis'],
};

/** Topics to write about when the brand and campaign give none that may be used. */
export const FALLBACK_TOPICS: readonly string[] = [
  'everyday work',
  'good habits',
  'getting started',
  'small wins',
  'doing things well',
];
