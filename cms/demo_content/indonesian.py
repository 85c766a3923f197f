"""The demo in Indonesian: two authors, their posts and the readers who discuss them
(in the everyday register of Indonesian developers, English terms and all)."""

from cms.demo_content import Article, Commenter, Voice

AUTHORS = [
    ("dewi", "Dewi Anggraini", "Backend developer in Bandung; writes in Indonesian about publishing and MongoDB."),
    ("rizky", "Rizky Pratama", "Looks after the comments of a news site in Jakarta."),
]

COMMENTERS = tuple(
    Commenter(name=name, email=f"{email}@example.com")
    for name, email in (
        ("Budi Santoso", "budi.santoso"), ("Siti Rahmawati", "siti.rahmawati"), ("Agus Setiawan", "agus.s"),
        ("Putri Wulandari", "putri.w"), ("Andi Saputra", "andi.saputra"), ("Nur Hidayah", "nur.hidayah"),
        ("Fajar Nugroho", "fajar.nugroho"), ("Wahyu Kurniawan", "wahyu.k"), ("Rina Marlina", "rina.marlina"),
        ("Yoga Prasetyo", "yoga.prasetyo"), ("Sutrisno", "sutrisno"), ("Made Wirawan", "made.wirawan"),
        ("Intan Permatasari", "intan.p"),
    )
)

ARTICLES = (
    Article(
        slug="menjadwalkan-tulisan-tanpa-cron-yang-rapuh",
        title="Menjadwalkan tulisan tanpa cron yang rapuh",
        author="dewi",
        language="id",
        tags=("penerbitan", "jadwal", "mongodb"),
        excerpt=(
            "Tulisan yang dijadwalkan terbit jam tujuh pagi seharusnya muncul jam tujuh pagi, walaupun server "
            "sempat mati semalaman. Caranya: jadikan waktu terbit bagian dari query."
        ),
        body="""\
Redaksi kami menjadwalkan hampir semua tulisan: naskah selesai malam hari, terbit jam
tujuh pagi saat orang membuka ponsel di KRL. Dulu kami mengandalkan cron yang tiap
menit mengubah status tulisan dari "terjadwal" menjadi "terbit". Suatu pagi cron itu
mati, dan tiga tulisan baru muncul jam sepuluh.

## Waktu terbit adalah bagian dari query

Sekarang tulisan terjadwal langsung disimpan dengan status terbit, dan kolom
`published` berisi waktu yang akan datang. Halaman depan hanya menampilkan tulisan yang
waktu terbitnya sudah lewat:

```
{status: "published", published: {$lte: sekarang}}
```

Tidak ada yang perlu membalik sakelar tepat waktu. Jam tujuh lewat satu detik, tulisan
itu sudah masuk hasil query.

## Yang tetap butuh tugas terjadwal

Beberapa hal memang harus terjadi sekali saat tulisan terbit: mengirim buletin,
memberi tahu pelanggan, membersihkan cache. Untuk itu kami tetap punya tugas berkala,
tapi tugas itu mencatat apa saja yang sudah dikerjakannya. Kalau ia mati semalaman,
begitu hidup lagi ia mengerjakan yang tertinggal, tidak lebih dan tidak kurang.

## Zona waktu

Simpan semuanya dalam UTC. Editor di Jakarta mengetik "07.00", formulir mengubahnya
dari WIB, dan kontributor di Makassar tidak perlu berhitung sendiri.
""",
        talk=(
            ("A: Jadi halaman depannya tidak di-cache sama sekali? Kalau di-cache lima menit, tulisannya tetap "
             "telat muncul dong?",
             "@: Di-cache, tapi umur cache-nya dipotong sampai waktu terbit berikutnya. Paling lambat telat "
             "beberapa detik.",
             "A: Oh, pintar juga. Jadi cache-nya tahu kapan dia harus basi."),
            ("A: Kami dulu kena masalah yang sama persis, cron mati pas libur Lebaran. Tidak ada yang sadar "
             "sampai hari ketiga.",
             "B: Aduh, pas Lebaran pula. Sekarang sudah pakai cara di artikel ini?",
             "A: Sudah, ditambah alarm kalau tugas berkalanya tidak melapor lebih dari sepuluh menit.",
             "B: Alarm itu yang sering dilupakan. Tugas yang mati diam-diam lebih berbahaya daripada yang mati "
             "sambil teriak."),
            ("A: Kontributor kami ada yang di Jayapura, WIT. Formulirnya pakai zona waktu siapa?",
             "@: Zona waktu akun masing-masing. Yang di Jayapura mengetik jam WIT, yang tersimpan tetap UTC.",
             "C: Asal labelnya jelas di formulir. Kami pernah salah terbit dua jam karena editornya mengira "
             "itu jam WIB."),
        ),
    ),
    Article(
        slug="paginasi-komentar-pakai-cursor",
        title="Paginasi komentar: tinggalkan skip, pakai cursor",
        author="rizky",
        language="id",
        tags=("paginasi", "performa", "mongodb"),
        excerpt=(
            "Halaman ke-200 dengan `skip` berarti database membaca lalu membuang ribuan komentar dulu. Cursor "
            "dari komentar terakhir di halaman membuat setiap halaman sama cepatnya."
        ),
        body="""\
Di situs berita tempat saya bekerja, artikel politik bisa mengumpulkan puluhan ribu
komentar. Paginasi kami dulu memakai `skip` dan `limit`, dan halaman-halaman akhir
terasa makin lambat. Wajar saja: untuk menampilkan halaman ke-200, database tetap harus
melewati 9.950 komentar sebelumnya.

## Cursor: mulai dari yang terakhir dilihat

Alih-alih nomor halaman, tautan "berikutnya" membawa kunci urutan komentar terakhir di
halaman itu. Query halaman berikutnya cukup meminta yang lebih besar dari kunci itu:

```
{discussion_id: id, full_slug: {$gt: kunci_terakhir}}
```

Dengan indeks `{discussion_id: 1, full_slug: 1}`, halaman ke-2 dan halaman ke-200 sama
cepatnya.

## Yang hilang

- Pembaca tidak bisa melompat langsung ke halaman 137. Ternyata hampir tidak ada yang
  melakukannya.
- Jumlah halaman tidak bisa diketahui dari cursor. Kami menyimpan jumlah komentar di
  dokumen artikel dan menampilkannya dari sana.

## Yang didapat

Selain cepat, halaman tidak bergeser ketika komentar baru masuk. Dengan `skip`, satu
balasan baru di halaman sebelumnya mendorong komentar terakhirnya ke halaman berikutnya,
dan pembaca melihatnya dua kali.
""",
        talk=(
            ("A: Kalau urutannya terbaru dulu, kuncinya pakai apa, Mas?",
             "@: Pakai waktu posting, dengan indeks `{discussion_id: 1, posted: -1}`. Ditambah slug sebagai "
             "penentu kalau ada dua komentar di milidetik yang sama.",
             "A: Siap, Mas. Berarti tiap urutan butuh indeksnya sendiri ya.",
             "@: Betul. Satu urutan, satu indeks. Jangan sampai database mengurutkan di memori."),
            ("A: Tidak bisa lompat ke halaman tertentu itu lumayan mengganggu buat moderator, lho.",
             "B: Moderator kan bisa pakai pencarian atau filter per pengguna, bukan nomor halaman.",
             "A: Iya juga sih. Selama ini kami pakai nomor halaman karena cuma itu yang ada."),
            ("A: Artikel politik sampai puluhan ribu komentar... moderatornya berapa orang tuh?",
             "@: Lima orang bergantian, ditambah filter kata kasar. Paginasi yang cepat malah membantu mereka "
             "juga.",
             "B: Salut buat timnya. Kolom komentar berita politik itu medan perang."),
        ),
    ),
    Article(
        slug="menghitung-komentar-tanpa-menghitung-ulang",
        title="Menampilkan jumlah komentar tanpa menghitungnya setiap saat",
        author="dewi",
        language="id",
        tags=("mongodb", "performa", "ringkasan"),
        excerpt=(
            "Angka \"128 komentar\" di halaman depan tidak perlu dihitung setiap kali halaman dibuka. Simpan di "
            "dokumen tulisan, dan hitung ulang hanya ketika ada yang berubah."
        ),
        body="""\
Halaman depan kami menampilkan dua puluh tulisan, masing-masing dengan jumlah
komentarnya. Versi pertama menjalankan dua puluh `count_documents` setiap kali halaman
dibuka. Di hari biasa tidak terasa. Di hari ada berita besar, itulah query paling berat
di seluruh situs.

## Simpan angkanya di tulisan

Sekarang dokumen tulisan punya kolom `comment_count` dan tiga komentar terbaru. Halaman
depan cukup membaca tulisan, tanpa menyentuh koleksi komentar sama sekali.

## Hitung ulang, jangan tambah satu

Godaannya adalah `$inc` setiap ada komentar baru. Masalahnya, angka itu akan melenceng
begitu ada yang gagal di tengah jalan: komentarnya tersimpan tapi `$inc`-nya tidak, atau
komentar dihapus moderator lewat jalur lain. Kami memilih menghitung ulang seluruh
diskusi setelah setiap perubahan, lalu menulis hasilnya. Sedikit lebih mahal, tapi
angkanya selalu kembali benar dengan sendirinya.

## Kalau dua perubahan datang bersamaan

Dua penghitungan ulang bisa selesai dalam urutan terbalik, dan yang lebih lama menimpa
yang lebih baru. Karena itu setiap ringkasan membawa nomor versi, dan penulisan hanya
berhasil kalau versinya masih sama dengan yang dibaca di awal.
""",
        talk=(
            ("A: Menghitung ulang seluruh diskusi tiap ada komentar baru, apa tidak berat untuk artikel dengan "
             "puluhan ribu komentar?",
             "@: Hitungannya memakai indeks yang sama dengan halaman komentar, jadi cepat. Untuk artikel yang "
             "sangat ramai, penghitungannya ditunda beberapa detik supaya beberapa komentar dihitung sekaligus.",
             "A: Masuk akal. Telat dua detik tidak ada yang peduli, angka salah semua orang lihat."),
            ("A: Kami pakai `$inc` dari awal, dan angkanya sudah meleset ratusan di beberapa artikel lama.",
             "B: Bisa dibereskan dengan skrip sekali jalan yang menghitung ulang semuanya, baru setelah itu "
             "pindah ke cara di artikel ini.",
             "A: Itu rencananya. Cuma harus cari waktu saat trafik sepi.",
             "B: Skripnya bisa jalan pelan-pelan per artikel, tidak perlu menunggu tengah malam."),
            ("A: Bagian nomor versi itu penting banget dan jarang dibahas. Makasih sudah ditulis.",
             "C: Setuju. Kami baru sadar masalah itu setelah angka komentar di satu artikel naik-turun sendiri."),
        ),
    ),
)

PRAISE = (
    "Tulisannya jelas dan langsung ke inti. Terima kasih sudah berbagi.",
    "Simpan dulu, mau dibaca pelan-pelan akhir pekan ini.",
    "Jarang ada tulisan teknis berbahasa Indonesia serapi ini.",
    "Sudah saya bagikan ke grup tim. Mantap!",
    "Contoh-contohnya yang bikin tulisan ini gampang dipahami.",
    "Ditunggu lanjutannya, kalau bisa dengan angka dari production.",
    "Sudah lama jadi pembaca diam, baru kali ini ikut komentar. Tulisan ini layak.",
    "Baca dua kali, dan yang kedua malah makin terasa rapinya urutan bagian-bagiannya.",
)
REMARKS = PRAISE + (
    "Pas banget, minggu lalu tim kami debat soal ini. Langsung saya kirim tautannya.",
    "Suka karena setiap pilihan disebutkan juga harganya, bukan cuma kelebihannya.",
    "Kami memilih jalan sebaliknya dua tahun lalu, dan makin ke sini makin menyesal.",
    "Akhirnya ada yang bilang terang-terangan kalau kebanyakan situs itu kecil.",
    "Semua yang ditulis di sini kami pelajari dengan cara yang menyakitkan.",
    "Bagian ukur dulu baru putuskan itu yang paling sering dilewati, termasuk oleh tim saya.",
    "Situs kami lagi kena masalah persis seperti ini. Waktunya pas sekali.",
    "Kalau ada bagian tentang apa yang perlu dipantau setelah naik ke production, pasti makin lengkap.",
    "Kolom komentarnya juga tidak kalah berisi dari tulisannya.",
    "Ada beberapa bagian yang saya kurang setuju, tapi alasannya dijelaskan dengan sangat jelas.",
    "Versi sederhana di tulisan ini sebenarnya sudah cukup untuk hampir semua proyek yang pernah saya pegang.",
    "Yang paling susah bukan kodenya, tapi meyakinkan satu tim.",
    "Baru mulai belajar MongoDB, dan tulisan ini membantu banget memahami kenapa skemanya begitu.",
    "Ternyata masalah di kantor kami ini masalah umum. Lega juga bacanya.",
)
AGREEMENTS = (
    "Setuju banget. Kelihatannya sederhana, sampai hari ramai pertama datang.",
    "Betul. Kami belajar ini setelah situs tumbang, cara belajar yang paling mahal.",
    "Ini dia. Pilihan yang membosankan biasanya yang benar untuk beberapa tahun pertama.",
    "Menambah itu gampang, mencabut yang susah. Sepakat.",
    "Ukur dulu, baru putuskan. Tidak bisa lebih setuju lagi.",
    "Angka kami juga hampir sama persis.",
    "Saya tambahkan: tulis alasan memilihnya, supaya orang berikutnya tidak membongkarnya tanpa sengaja.",
    "Sama, walaupun kami harus menulis ulang dua kali sampai ke sana.",
    "Bisa dikonfirmasi. Kami coba versi yang canggih dulu, sebulan kemudian ditarik lagi.",
    "Poin bagus. Sebagian besar masalah kami juga datang dari situ.",
    "Betul, dan makin besar situsnya makin terasa.",
    "Setuju, asal diuji di database yang benar-benar dipakai, bukan cuma di laptop.",
    "Dan pastikan ada tes yang gagal kalau ada yang merusaknya.",
    "Menurut saya ini poin paling penting dari seluruh tulisan.",
    "DBA kami sudah bilang begini bertahun-tahun, sekarang akhirnya ada tulisannya.",
)
THANKS = (
    "Makasih, sekarang jadi jelas.",
    "Membantu sekali, terima kasih banyak.",
    "Oh begitu ternyata. Makasih ya!",
    "Terima kasih sudah dijelaskan sedetail ini, besok langsung saya coba.",
    "Sejam baca dokumentasi dan justru bagian ini yang terlewat. Terima kasih.",
    "Nah, ini potongan yang saya cari-cari.",
    "Makasih, nanti saya kabari lagi kalau sudah ada angkanya.",
    "Langsung masuk catatan tim. Makasih banyak!",
    "Tidak pernah kepikiran dari sisi itu. Terima kasih, Kak.",
    "Barusan dicoba dan jalan. Mantap, terima kasih!",
)
FOLLOW_UPS = (
    "Itu diukur di replica set atau di satu server saja?",
    "Kalau komentarnya sudah ratusan ribu, masih aman?",
    "Ada tes otomatisnya, atau dicek manual?",
    "Kalau mulai dari nol hari ini, apa yang akan dibuat berbeda?",
    "Kalau di depannya dipasang cache, ada yang berubah?",
    "Waktu itu pakai MongoDB versi berapa?",
    "Butuh berapa lama sampai selesai diterapkan?",
    "Pembaca sempat merasakan sesuatu waktu perpindahannya?",
    "Itu sudah bawaan, atau harus dinyalakan sendiri?",
    "Ada angka sebelum dan sesudahnya?",
    "Kalau dua orang mengirim komentar di detik yang sama, bagaimana?",
    "Ketemu di dokumentasi, atau harus baca kode sumbernya?",
    "Untuk situs kecil, masih akan pakai cara ini juga?",
)
DOUBTS = (
    "Saya kurang yakin ini masih berlaku kalau trafiknya sudah besar betulan.",
    "Pengalaman saya agak beda, tapi diskusi di tempat kami memang jauh lebih pendek.",
    "Hati-hati menarik kesimpulan dari satu situs saja.",
    "Kedengarannya aman, sampai ada yang menjalankannya di disk yang lambat.",
    "Jujur, ini seperti menyelesaikan masalah yang tidak dimiliki kebanyakan situs.",
    "Mungkin, tapi biaya operasionalnya sering diremehkan.",
    "Kompleksitasnya tidak hilang, cuma pindah tempat.",
    "Boleh, tapi saya mau ada jalan mundurnya dulu.",
    "Belum yakin. Di atas kertas selalu lebih sederhana daripada kenyataannya.",
    "Tergantung juga bagaimana pembaca memakai kolom komentarnya.",
    "Yang susah itu migrasinya nanti, bukan versi pertamanya.",
    "Secara teori benar. Praktiknya, jarang ada yang membaca log sampai sempat dapat peringatan.",
)
# Two readers of a news site who do not let go, longer than the page indents.
DEBATES = (
    (
        "A: Menurut saya kolom komentar di situs berita sebaiknya disembunyikan di balik tombol. Yang mau "
        "baca silakan klik.",
        "B: Begitu disembunyikan, yang klik tinggal orang yang memang mau ribut.",
        "A: Justru itu. Pembaca biasa tidak perlu melihat keributannya.",
        "B: Tapi pembaca biasa juga yang sering menulis komentar paling berguna, misalnya koreksi fakta.",
        "A: Koreksi fakta mestinya dikirim ke redaksi, bukan ditulis di kolom komentar.",
        "B: Idealnya begitu. Kenyataannya, koreksi di komentar lebih cepat dibaca redaksi daripada surel.",
        "A: Oke, itu masuk akal. Tapi tetap saja komentar teratas sering yang paling kasar.",
        "B: Itu masalah urutan, bukan soal tampil atau tidak. Urutkan dari yang terlama, jangan dari yang "
        "paling ramai.",
        "A: Hmm, jadi yang datang duluan dan masih tenang yang dilihat pertama.",
        "B: Betul. Orang yang berkomentar di menit pertama biasanya belum sempat marah.",
        "A: Baiklah, saya coba usulkan ke tim. Tapi kalau ribut, kamu yang saya salahkan.",
        "B: Siap. Asal nama saya ditulis di notulen rapatnya.",
    ),
)

VOICE = Voice(
    language="id", commenters=COMMENTERS, praise=PRAISE, remarks=REMARKS, agreements=AGREEMENTS,
    thanks=THANKS, follow_ups=FOLLOW_UPS, doubts=DOUBTS, debates=DEBATES,
)
